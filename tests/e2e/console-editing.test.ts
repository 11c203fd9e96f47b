// The console's editors in Chromium: leaving with unsaved edits asks first, segment conditions need no
// property, values are checked as they are typed (regular expressions, with re2js fetched only when needed;
// the flag's type), server errors
// name rules and conditions as the editor does, nothing is cut off at 1366 px, and the sign-in page gives
// the README's command.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Browser, Page } from 'playwright-core'
import { browserSuite, launchChromium } from '../helpers/browser'
import { api, startServer, type TestServer } from '../helpers/server'

browserSuite('console editing', () => {
  let srv: TestServer
  let browser: Browser
  const T = 30_000

  beforeAll(async () => {
    srv = await startServer()
    browser = await launchChromium()
    const post = (path: string, body: unknown) => api(srv, 'POST', path, { token: srv.adminToken, body })
    await post('/api/v1/segments', { key: 'beta-testers', conditions: [] })
    await post('/api/v1/segments', { key: 'short-lived', conditions: [] })
    await post('/api/v1/flags', { key: 'plain', enabled: true, value: true })
    await post('/api/v1/flags', {
      key: 'checkout-redesign-2026',
      enabled: true,
      value: 'variant-a-long-value',
      targeting: {
        rules: [
          {
            conditions: [
              { property: 'custom.organisation_identifier', operator: 'in', value: ['enterprise-customer-one', 'enterprise-customer-two'] },
              { property: 'custom.email', operator: 'matches', value: '^[a-z]+@example\\.com$' },
              { operator: 'in_segment', value: 'beta-testers' },
            ],
            value: 'variant-b-long-value',
          },
        ],
        overrides: { 'user-with-a-long-identifier-123': 'variant-c' },
      },
    })
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await srv?.stop()
  })

  async function open(path: string, width = 1280, height = 900, before?: (page: Page) => void): Promise<Page> {
    const page = await browser.newPage({ viewport: { width, height } })
    page.setDefaultTimeout(15_000)
    before?.(page)
    await page.goto(`${srv.url}/`)
    await page.waitForURL('**/signin')
    // The sign-in page renders once it knows the sign-in methods (GET /api/v1/auth/methods).
    await page.getByText('npm run cli -- tokens create', { exact: false }).first().waitFor()
    await page.getByLabel('Access token').fill(srv.adminToken)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('button', { name: 'Sign out' }).waitFor()
    await page.getByRole('link', { name: 'Flags', exact: true }).click()
    await page.getByRole('link', { name: path.split('/').pop()! }).click()
    await page.getByRole('button', { name: 'Save changes' }).waitFor()
    return page
  }
  const valueBox = (page: Page, name: string) => page.getByRole('textbox', { name, exact: true })

  test(
    'leaving with unsaved edits asks: staying keeps them (links and back), leaving drops them',
    async () => {
      const page = await open('/flags/plain')
      await valueBox(page, 'Value').fill('false')
      const questions: string[] = []
      let answer = false
      page.on('dialog', (d) => {
        questions.push(`${d.type()}: ${d.message()}`)
        void (answer ? d.accept() : d.dismiss())
      })
      await page.getByRole('link', { name: 'Configs', exact: true }).click()
      expect(questions).toEqual(['confirm: You have unsaved changes. Leave this page and lose them?'])
      expect(new URL(page.url()).pathname).toBe('/flags/plain')
      expect(await valueBox(page, 'Value').inputValue()).toBe('false')
      await page.goBack()
      await page.waitForTimeout(200)
      expect(questions).toHaveLength(2)
      expect(new URL(page.url()).pathname).toBe('/flags/plain')
      expect(await valueBox(page, 'Value').inputValue()).toBe('false')
      answer = true
      await page.getByRole('link', { name: 'Configs', exact: true }).click()
      await page.waitForURL('**/configs')
      expect(questions).toHaveLength(3)
      // Unchanged pages leave without a question.
      await page.getByRole('link', { name: 'Flags', exact: true }).click()
      await page.waitForURL(`${srv.url}/`)
      expect(questions).toHaveLength(3)
      expect((await api(srv, 'GET', '/api/v1/flags/plain/definition', { token: srv.adminToken })).body.flag.value).toBe(true)
      await page.close()
    },
    T,
  )

  test(
    'reloading or closing the tab with unsaved edits is held (beforeunload), and only then',
    async () => {
      const page = await open('/flags/plain')
      const held = () =>
        page.evaluate(() => {
          const e = new Event('beforeunload', { cancelable: true })
          window.dispatchEvent(e)
          return e.defaultPrevented
        })
      expect(await held()).toBe(false)
      await valueBox(page, 'Value').fill('false')
      expect(await held()).toBe(true)
      await page.getByRole('button', { name: 'Discard changes' }).click()
      expect(await held()).toBe(false)
      await page.close()
    },
    T,
  )

  test(
    'a segment condition has no property; it saves without one',
    async () => {
      const page = await open('/flags/plain')
      await page.getByRole('button', { name: '+ Add rule' }).click()
      await page.getByLabel('Rule 1 condition 1 operator').selectOption('in_segment')
      expect(await page.getByLabel('Rule 1 condition 1 property').count()).toBe(0)
      await page.getByLabel('Rule 1 condition 1 value').selectOption('beta-testers')
      await page.getByRole('button', { name: 'Save changes' }).click()
      await page.getByText('All changes saved').waitFor()
      const stored = (await api(srv, 'GET', '/api/v1/flags/plain/definition', { token: srv.adminToken })).body.flag
      expect(stored.targeting.rules[0].conditions).toEqual([{ operator: 'in_segment', value: 'beta-testers' }])
      await page.close()
    },
    T,
  )

  test(
    'a regular expression is checked as it is typed, with the server’s rules',
    async () => {
      const page = await open('/flags/checkout-redesign-2026')
      const field = page.getByLabel('Rule 1 condition 2 value')
      await field.fill('^(unclosed')
      const error = page.locator('.condition-error.field-error')
      await error.first().waitFor()
      expect(await error.first().textContent()).toContain('Value is not a valid regular expression')
      expect(await page.getByRole('button', { name: 'Save changes' }).isDisabled()).toBe(true)
      await field.fill('(a)\\1') // a backreference: not RE2
      expect(await error.first().textContent()).toContain('RE2 syntax')
      await field.fill('^[a-z]+@example\\.org$')
      await error.first().waitFor({ state: 'detached' })
      await page.close()
    },
    T,
  )

  test(
    're2js, the engine of `matches` (a quarter of the console’s script), is fetched only once a condition uses it',
    async () => {
      const scripts: string[] = []
      const page = await open('/flags/plain', 1280, 900, (p) =>
        p.on('request', (r) => void (r.resourceType() === 'script' && scripts.push(new URL(r.url()).pathname))),
      )
      expect(scripts.length).toBeGreaterThan(0)
      const re2 = () => scripts.filter((s) => /\/re2-[\w-]+\.js$/.test(s))
      expect(re2()).toEqual([])
      await page.getByRole('link', { name: 'Flags', exact: true }).click()
      await page.getByRole('link', { name: 'checkout-redesign-2026' }).click()
      await page.getByLabel('Rule 1 condition 2 value').fill('^(unclosed')
      await page.locator('.condition-error.field-error').first().waitFor()
      expect(re2()).toHaveLength(1)
      await page.close()
    },
    T,
  )

  test(
    'a value of another type than the flag is shown before saving, named like the server names it',
    async () => {
      const page = await open('/flags/plain')
      await valueBox(page, 'Rule 1 value').fill('"yes"')
      const problems = page.getByRole('status').filter({ hasText: 'Fix before saving' })
      await problems.waitFor()
      expect(await problems.textContent()).toContain("Rule 1: value must be a boolean, like the flag's value")
      expect(await page.getByRole('button', { name: 'Save changes' }).isDisabled()).toBe(true)
      await valueBox(page, 'Rule 1 value').fill('false')
      await problems.waitFor({ state: 'detached' })
      await page.close()
    },
    T,
  )

  test(
    'a save refused by the server names the rule and condition, not a raw path',
    async () => {
      const page = await open('/flags/plain')
      await page.getByLabel('Rule 1 condition 1 value').selectOption('short-lived')
      // Someone deletes the segment while the edit is open.
      expect((await api(srv, 'DELETE', '/api/v1/segments/short-lived?force=true', { token: srv.adminToken })).status).toBe(200)
      await page.getByRole('button', { name: 'Save changes' }).click()
      const alert = page.getByRole('alert').filter({ hasText: 'Could not save' })
      await alert.waitFor()
      const text = (await alert.textContent())!
      expect(text).toContain('Rule 1, condition 1: value unknown segment "short-lived"')
      expect(text).not.toContain('targeting.rules')
      await page.close()
    },
    T,
  )

  test(
    'at 1366 × 768 no field of the flag editor cuts its content off',
    async () => {
      const page = await open('/flags/checkout-redesign-2026', 1366, 768)
      const cut = await page.evaluate(() =>
        [...document.querySelectorAll('form input:not([type=checkbox]), form select')]
          .filter(
            (e) => (e as HTMLElement).offsetParent !== null && (e as HTMLInputElement).scrollWidth > (e as HTMLElement).clientWidth + 1,
          )
          .map((e) => `${e.getAttribute('aria-label')}: ${(e as HTMLInputElement).scrollWidth} > ${(e as HTMLElement).clientWidth}`),
      )
      expect(cut).toEqual([])
      await page.screenshot({ path: `${import.meta.dir}/screenshots/flag-editor-1366.png`, fullPage: true }).catch(() => undefined)
      await page.close()
    },
    T,
  )
})
