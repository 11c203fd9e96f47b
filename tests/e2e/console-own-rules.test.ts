// Own rules per environment in Chromium (docs/console.md, docs/flag-switches.md): the Environments card says
// per environment "uses the flag's rules" or "own rules"; Give <env> its own rules starts from a copy of the
// flag's, edited with the same rule editor; Use the flag's rules again drops them; the Serving-now card and
// the playground name the rules that decided; a person who may change staging only edits staging's rules
// and is refused production's.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Browser, Page } from 'playwright-core'
import { browserSuite, launchChromium } from '../helpers/browser'
import { startWithPeople, type People } from '../helpers/people'
import { api } from '../helpers/server'

const T = 60_000
const ADMIN = 'admin@example.com'
const STAGER = 'stager@example.com'

browserSuite('console: own rules per environment', () => {
  let p: People
  let browser: Browser
  const problems: string[] = []
  const flag = async (key: string) => (await api(p.srv, 'GET', `/api/v1/flags/${key}/definition`, { token: p.srv.adminToken })).body.flag

  async function pageOf(who: string, path: string): Promise<Page> {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    const [name, value] = p.cookies[who]!.split('=') as [string, string]
    await ctx.addCookies([{ name, value, url: p.srv.url }])
    const page = await ctx.newPage()
    page.setDefaultTimeout(15_000)
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`))
    await page.goto(`${p.srv.url}${path}`)
    return page
  }

  beforeAll(async () => {
    // The stager edits staging only: a viewer in production and development.
    p = await startWithPeople([
      { email: ADMIN, role: 'admin' },
      {
        email: STAGER,
        role: 'editor',
        environments: { production: 'viewer', development: 'viewer' },
        token: ['read:flags', 'write:flags'],
      },
    ])
    const body = {
      key: 'checkout',
      enabled: true,
      value: false,
      targeting: { rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'pro' }], value: true }] },
    }
    expect((await api(p.srv, 'POST', '/api/v1/flags', { token: p.srv.adminToken, body })).status).toBe(201)
    browser = await launchChromium()
  }, 2 * T)
  afterAll(async () => {
    await browser?.close()
    await p?.stop()
  }, T)

  test(
    "give production its own rules from a copy of the flag's, edit them, see them decide, then use the flag's again",
    async () => {
      const page = await pageOf(ADMIN, '/flags/checkout')
      const production = page.getByTestId('env-rules-production')
      await production.getByText('uses the flag’s rules').waitFor()
      await production.getByRole('button', { name: 'Give production its own rules' }).click()
      await production.getByText('own rules', { exact: true }).waitFor()
      await page.getByRole('heading', { name: 'production’s own rules' }).waitFor()
      // a copy of the flag's rule, in the same editor, its labels prefixed with the environment
      const value = page.getByLabel('production Rule 1 condition 1 value')
      expect(await value.inputValue()).toBe('pro')
      await value.fill('staff')
      await page.getByRole('button', { name: 'Save changes' }).click()
      await page.getByRole('button', { name: 'Save changes' }).and(page.locator(':disabled')).waitFor()
      const saved = await flag('checkout')
      expect(saved.environments.production.targeting).toEqual({
        rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'staff' }], value: true }],
      })
      expect(saved.targeting.rules[0].conditions[0].value).toBe('pro')

      // Serving now names whose rules decide where
      await page.getByTestId('serving-production').filter({ hasText: 'production’s own rules first' }).waitFor()
      expect(await page.getByTestId('serving-staging').textContent()).toContain('the flag’s rules first')

      // the playground: production's own rules decided
      const playground = page.getByRole('region', { name: 'Evaluation playground' })
      await playground.getByLabel('Context user_id').fill('u-1')
      await playground.getByLabel('Context plan').fill('staff')
      await playground.getByLabel('Context environment').selectOption('production')
      await playground.getByRole('button', { name: 'Evaluate' }).click()
      await playground.getByTestId('eval-reason').filter({ hasText: 'targeting' }).waitFor()
      await playground.getByTestId('eval-reason-text').filter({ hasText: "Decided by production's own rules." }).waitFor()
      expect(await playground.getByLabel('How the answer was reached').textContent()).toContain("with production's own rules")
      await playground.getByLabel('Context environment').selectOption('staging')
      await playground.getByRole('button', { name: 'Evaluate' }).click()
      await playground.getByTestId('eval-reason').filter({ hasText: 'default' }).waitFor()

      // and back to the flag's rules
      await production.getByRole('button', { name: 'Use the flag’s rules again' }).click()
      await production.getByText('uses the flag’s rules').waitFor()
      expect(await page.getByRole('heading', { name: 'production’s own rules' }).count()).toBe(0)
      await page.getByRole('button', { name: 'Save changes' }).click()
      await page.getByRole('button', { name: 'Save changes' }).and(page.locator(':disabled')).waitFor()
      expect((await flag('checkout')).environments.production).toEqual({ enabled: true })
      await page.context().close()
    },
    2 * T,
  )

  test(
    "a person who may change staging only edits staging's own rules there; production is read-only to them",
    async () => {
      const page = await pageOf(STAGER, '/flags/checkout')
      await page.getByRole('heading', { name: 'Environments you may change' }).waitFor()
      await page.getByTestId('env-rules-staging').getByRole('button', { name: 'Give staging its own rules' }).click()
      await page.getByRole('heading', { name: 'staging’s own rules' }).waitFor()
      expect(await page.getByLabel('staging Rule 1 condition 1 value').inputValue()).toBe('pro')
      await page.getByRole('textbox', { name: 'staging Rule 1 value' }).fill('false')
      await page.getByRole('button', { name: 'Save staging' }).click()
      await page.getByTestId('env-rules-staging').getByText('own rules', { exact: true }).waitFor()
      const deadline = Date.now() + 15_000
      while (Date.now() < deadline && !(await flag('checkout')).environments?.staging?.targeting) await Bun.sleep(100)
      const saved = await flag('checkout')
      expect(saved.environments.staging).toEqual({
        enabled: true,
        targeting: { rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'pro' }], value: false }] },
      })
      // production: read-only for them, saying whose rules it uses, nothing to give
      const production = page.getByRole('listitem', { name: 'production (read-only)' })
      expect(await production.getByTestId('env-rules-production').textContent()).toBe('uses the flag’s rules')
      expect(await page.getByRole('button', { name: 'Give production its own rules' }).count()).toBe(0)
      // and the API refuses them production's own rules
      const token = p.tokens[STAGER]!
      expect(
        (await api(p.srv, 'PUT', '/api/v1/flags/checkout/environments/production', { token, body: { enabled: true, targeting: {} } }))
          .status,
      ).toBe(403)
      expect(
        (await api(p.srv, 'PUT', '/api/v1/flags/checkout/environments/staging', { token, body: { enabled: true, targeting: {} } })).status,
      ).toBe(200)
      await page.context().close()
      expect(problems).toEqual([])
    },
    2 * T,
  )
})
