// A flag's release plans in Chromium (docs/experiments.md §7): created from the flag page through the form
// (environment, steps, guardrails), started with its button; the timeline marks the current step; paused
// and resumed by hand; then real harmful traffic (evaluations and track events over HTTP) makes the monitor
// roll it back, and the page shows it rolled back with the guardrail's interval, in red.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Browser, Page } from 'playwright-core'
import { browserSuite, launchChromium } from '../helpers/browser'
import { api, startServer, type TestServer } from '../helpers/server'
import { drive } from '../helpers/release-traffic'
import { until } from '../helpers/until'

const T = 60_000

browserSuite('console: release plans', () => {
  let srv: TestServer
  let browser: Browser
  const call = (method: string, path: string, body?: unknown) => api(srv, method, path, { token: srv.adminToken, body })

  beforeAll(async () => {
    srv = await startServer({
      env: {
        EXPOSURE_FLUSH_MS: '150',
        RELEASE_MONITOR_MS: '250',
        RATE_LIMIT_EVALUATION_PER_MINUTE: '1000000',
        RATE_LIMIT_MANAGEMENT_PER_MINUTE: '100000',
      },
    })
    browser = await launchChromium()
    expect((await call('POST', '/api/v1/flags', { key: 'rp-checkout', enabled: true, value: true })).status).toBe(201)
    expect(
      (
        await call('POST', '/api/v1/metrics', {
          key: 'errors',
          name: 'Saw an error',
          kind: 'proportion',
          event: 'error',
          higher_is_better: false,
        })
      ).status,
    ).toBe(201)
  }, 2 * T)
  afterAll(async () => {
    await browser?.close()
    await srv?.stop()
  })

  async function signIn(): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1366, height: 900 } })
    page.setDefaultTimeout(20_000)
    await page.goto(`${srv.url}/`)
    await page.waitForURL('**/signin')
    await page.getByLabel('Access token').fill(srv.adminToken)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('button', { name: 'Sign out' }).waitFor()
    return page
  }

  test(
    'create from the flag page, start, pause and resume; a harmful rollout is shown rolled back with its interval',
    async () => {
      const page = await signIn()
      await page.goto(`${srv.url}/flags/rp-checkout`)
      const card = page.locator('section.release-plans-card')
      await card.getByText('No release plan').waitFor()
      await card.getByRole('button', { name: 'New release plan' }).click()
      const dialog = page.getByRole('dialog', { name: 'New release plan' })
      await dialog.getByLabel('Environment').selectOption('production')
      await dialog.getByRole('button', { name: 'Remove the last step' }).click()
      await dialog.getByRole('button', { name: 'Remove the last step' }).click()
      await dialog.getByLabel('Step 1 percentage').fill('50')
      await dialog.getByLabel('Step 2 percentage').fill('100')
      await dialog.getByRole('checkbox', { name: /errors/ }).check()
      // a bad plan is refused naming the field; the dialog stays
      await dialog.getByLabel('Step 1 hold minutes').fill('0')
      await dialog.getByRole('button', { name: 'Create release plan' }).click()
      await dialog.getByText('steps[0].hold_minutes', { exact: false }).waitFor()
      await dialog.getByLabel('Step 1 hold minutes').fill('60')
      await dialog.getByRole('button', { name: 'Create release plan' }).click()
      await dialog.waitFor({ state: 'detached' })

      const plan = card.getByRole('article', { name: 'Release plan in production' })
      expect(await plan.getByTestId('plan-state').textContent()).toBe('Draft')
      expect(await plan.getByRole('list', { name: 'Steps' }).getByRole('listitem').allTextContents()).toEqual([
        '50 %hold 1 h',
        '100 %hold 1 h',
      ])
      await plan.getByRole('button', { name: 'Start' }).click()
      await plan.getByTestId('plan-state').filter({ hasText: 'Running' }).waitFor()
      expect(await plan.locator('[aria-current="step"]').textContent()).toContain('50 %')
      await plan.getByRole('button', { name: 'Pause' }).click()
      await plan.getByTestId('plan-state').filter({ hasText: 'Paused' }).waitFor()
      await plan.getByRole('button', { name: 'Resume' }).click()
      await plan.getByTestId('plan-state').filter({ hasText: 'Running' }).waitFor()
      expect(
        (await call('GET', '/api/v1/flags/rp-checkout/definition')).body.flag.environments.production.targeting.rollout.percentage,
      ).toBe(50)

      // harmful traffic: those served the new value err three times as often
      const t = { next: 0, inside: 0, outside: 0 }
      const id = (await call('GET', '/api/v1/flags/rp-checkout/release-plans')).body.release_plans[0].id
      await until(
        'rolled back',
        async () => {
          await drive(srv, srv.adminToken, 'rp-checkout', t, 100, (inside) => (inside ? 0.6 : 0.2))
          return (await call('GET', `/api/v1/flags/rp-checkout/release-plans/${id}`)).body.release_plan.state === 'rolled_back'
            ? true
            : undefined
        },
        90_000,
        10,
      )
      await page.reload()
      await plan.getByTestId('plan-state').filter({ hasText: 'Rolled back' }).waitFor()
      await plan.getByText('Regression on errors').waitFor()
      expect(await plan.getByTestId('interval-errors').textContent()).toMatch(/^-\d+\.\d % to -\d+\.\d %$/)
      expect(await plan.locator('tr.regressed rect.interval-bad').count()).toBe(1)
      expect(await plan.getByRole('button', { name: 'Roll back' }).count()).toBe(0)
    },
    3 * T,
  )
})
