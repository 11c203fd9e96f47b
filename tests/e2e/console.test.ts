// End-to-end: the admin console in a real Chromium against the real server (fresh SQLite per run): signing
// in and editing a flag (rules, playground, conflicts, targeting, list switches). The other admin pages are
// console-admin.test.ts. Needs Debian's chromium at /usr/bin/chromium: absent, the suite fails on CI and is
// skipped elsewhere.
import { beforeAll, expect, test } from 'bun:test'
import type { BrowserContext, Page } from 'playwright-core'
import { browserSuite } from '../helpers/browser'
import { api, type TestServer } from '../helpers/server'
import { consoleSession, TIMEOUT } from './fixtures/console-session'

browserSuite('admin console', () => {
  const { session, problems, signIn, go, holdFlagListReads, recordApi, shot } = consoleSession()
  let srv: TestServer
  let page: Page
  let context: BrowserContext
  beforeAll(() => {
    ;({ srv, page, context } = session)
  })

  test(
    'sign-in shows the project and the token permissions; the token never enters the URL',
    async () => {
      await page.goto(`${srv.url}/`)
      await page.waitForURL('**/signin')
      await shot(page, 'signin-1280')
      await page.getByLabel('Access token').fill('ff_defa_notARealTokenAtAll12')
      await page.getByRole('button', { name: 'Sign in' }).click()
      await expect(page.getByRole('alert').textContent()).resolves.toContain('Sign-in failed')

      await page.getByLabel('Access token').fill(srv.adminToken)
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.getByRole('heading', { name: 'Flags' }).waitFor()
      await page
        .locator('.brand-project')
        .filter({ hasText: /^Default$/ })
        .waitFor()
      expect(await page.getByRole('list', { name: 'Token permissions' }).textContent()).toContain('* (admin)')
      expect(page.url()).not.toContain(srv.adminToken)
      expect(await page.evaluate(() => sessionStorage.getItem('flagship.token'))).toBe(srv.adminToken)
      for (const name of ['Flags', 'Configs', 'Segments', 'Tokens', 'Webhooks', 'Audit log', 'Settings']) {
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name }).waitFor()
      }
      await page.getByText('No flags yet').waitFor()
    },
    TIMEOUT,
  )

  test(
    'create a flag and edit it with a targeting rule',
    async () => {
      await page.getByRole('button', { name: 'New flag' }).click()
      const dialog = page.getByRole('dialog', { name: 'New flag' })
      await dialog.getByLabel('Key').fill('checkout-v2')
      await dialog.getByRole('textbox', { name: 'Value', exact: true }).fill('"blue"')
      await dialog.getByRole('button', { name: 'Create flag' }).click()
      await page.waitForURL('**/flags/checkout-v2')
      await page.getByRole('heading', { name: 'checkout-v2' }).waitFor()

      await page.getByRole('button', { name: '+ Add rule' }).click()
      await page.getByLabel('Rule 1 condition 1 property').fill('plan')
      await page.getByLabel('Rule 1 condition 1 operator').selectOption('in')
      await page.getByLabel('Rule 1 condition 1 value').fill('pro, enterprise')
      // invalid JSON is reported inline and blocks saving
      await page.getByRole('textbox', { name: 'Rule 1 value', exact: true }).fill('"gold')
      await page
        .getByText(/Invalid JSON/)
        .first()
        .waitFor()
      expect(await page.getByRole('button', { name: 'Save changes' }).isDisabled()).toBe(true)
      await page.getByRole('textbox', { name: 'Rule 1 value', exact: true }).fill('"gold"')
      await page.getByRole('button', { name: 'Save changes' }).click()
      await page.getByText('All changes saved').waitFor()

      const flags = await api(srv, 'GET', '/api/v1/flags', { token: srv.adminToken })
      const flag = flags.body.flags.find((f: { key: string }) => f.key === 'checkout-v2').flag
      expect(flag.value).toBe('blue')
      expect(flag.targeting.rules).toEqual([
        { conditions: [{ property: 'plan', operator: 'in', value: ['pro', 'enterprise'] }], value: 'gold' },
      ])
      expect(flag.version).toBe(2)
    },
    TIMEOUT,
  )

  test(
    'switching the flag on changes the playground evaluation',
    async () => {
      const playground = page.getByRole('region', { name: 'Evaluation playground' })
      await playground.getByLabel('Context user_id').fill('u-42')
      await playground.getByLabel('Context plan').fill('pro')
      await playground.getByRole('button', { name: 'Evaluate' }).click()
      await expect(playground.getByTestId('eval-reason').textContent()).resolves.toBe('disabled')
      expect(await playground.getByTestId('eval-value').textContent()).toBe('null')

      await page.getByRole('switch', { name: 'Main switch' }).click()
      await page.getByRole('button', { name: 'Save changes' }).click()
      await page.getByText('All changes saved').waitFor()
      await playground.getByTestId('eval-reason').filter({ hasText: 'targeting' }).waitFor()
      expect(await playground.getByTestId('eval-value').textContent()).toBe('"gold"')
      expect(await playground.getByTestId('eval-type').textContent()).toBe('string')

      await playground.getByLabel('Context plan').fill('free')
      await playground.getByRole('button', { name: 'Evaluate' }).click()
      await playground.getByTestId('eval-reason').filter({ hasText: 'default' }).waitFor()
      expect(await playground.getByTestId('eval-value').textContent()).toBe('"blue"')
      await shot(page, 'flag-1280')
    },
    TIMEOUT,
  )

  test(
    'a concurrent change is shown as a conflict and can be overwritten',
    async () => {
      await page.getByRole('textbox', { name: 'Value', exact: true }).fill('"green"')
      const other = await api(srv, 'PUT', '/api/v1/flags/checkout-v2', { token: srv.adminToken, body: { value: 'red' } })
      expect(other.status).toBe(200)
      // the change stream says so before any save is tried; the draft stays
      await page.getByRole('alert', { name: 'Changed by someone else' }).waitFor()
      expect(await page.getByRole('textbox', { name: 'Value', exact: true }).inputValue()).toBe('"green"')
      await page.getByRole('button', { name: 'Save changes' }).click()
      const dialog = page.getByRole('dialog', { name: 'This was changed by someone else' })
      await dialog.waitFor()
      const diff = await dialog.locator('table').first().textContent()
      expect(diff).toContain('"red"')
      expect(diff).toContain('"green"')
      await shot(page, 'conflict-1280')
      await dialog.getByRole('button', { name: 'Overwrite with my changes' }).click()
      await page.getByText('All changes saved').waitFor()
      const flags = await api(srv, 'GET', '/api/v1/flags', { token: srv.adminToken })
      expect(flags.body.flags[0].flag.value).toBe('green')
    },
    TIMEOUT,
  )

  test(
    'individual targeting, rollout, environment override and active window are saved',
    async () => {
      await page.getByRole('button', { name: '+ Add user override' }).click()
      await page.getByLabel('Override 1 user id').fill('vip-1')
      await page.getByLabel('Override 1 value').fill('"platinum"')
      await page.getByLabel('Roll out to a percentage of contexts').check()
      await page.getByRole('spinbutton', { name: 'Percentage' }).fill('25')
      await page.getByLabel('Override in production').check()
      await page.getByRole('switch', { name: 'Enabled in production' }).click()
      await page.getByLabel('Active from').fill('2020-01-01T09:30')
      await shot(page, 'flag-editing-1280')
      await page.getByRole('button', { name: 'Save changes' }).click()
      await page.getByText('All changes saved').waitFor()

      const flags = await api(srv, 'GET', '/api/v1/flags', { token: srv.adminToken })
      const flag = flags.body.flags[0].flag
      expect(flag.targeting.overrides).toEqual({ 'vip-1': 'platinum' })
      expect(flag.targeting.rollout).toEqual({ percentage: 25, attribute: 'user_id' })
      expect(flag.environments).toEqual({ production: { enabled: false } })
      expect(Date.parse(flag.active_from)).toBe(new Date(2020, 0, 1, 9, 30).getTime())

      const playground = page.getByRole('region', { name: 'Evaluation playground' })
      await playground.getByLabel('Context user_id').fill('vip-1')
      await playground.getByRole('button', { name: 'Evaluate' }).click()
      await playground.getByTestId('eval-reason').filter({ hasText: 'override' }).waitFor()
      await playground.getByLabel('Context environment').selectOption('production')
      await playground.getByRole('button', { name: 'Evaluate' }).click()
      await playground.getByTestId('eval-reason').filter({ hasText: 'disabled' }).waitFor()

      // undo the production override and the rollout so later steps see a plain flag
      await page.getByLabel('Override in production').uncheck()
      await page.getByLabel('Roll out to a percentage of contexts').uncheck()
      await page.getByRole('button', { name: 'Save changes' }).click()
      await page.getByText('All changes saved').waitFor()
    },
    TIMEOUT,
  )

  test(
    'the list switches a flag per environment',
    async () => {
      const reads = recordApi(page)
      await go(page, '/')
      const sw = page.getByRole('switch', { name: 'staging: checkout-v2' })
      expect(await sw.getAttribute('aria-checked')).toBe('true')
      reads.stop()
      // the list reads the page it shows
      expect(reads.seen).toContain('/api/v1/flags?limit=25&offset=0')
      await sw.click()
      // staging follows the main switch: switching it gives it its own, which the list says first
      await page
        .getByRole('dialog', { name: 'Switch checkout-v2 off in staging?' })
        .getByRole('button', { name: 'Switch off in staging' })
        .click()
      await page.locator('[role=switch][aria-label="staging: checkout-v2"][aria-checked=false]').waitFor()
      const flags = await api(srv, 'GET', '/api/v1/flags', { token: srv.adminToken })
      expect(flags.body.flags[0].flag.environments).toEqual({ staging: { enabled: false } })
      await page.getByLabel('Search flags').fill('nothing-like-this')
      await page.getByText('No flags match').waitFor()
      await page.getByLabel('Search flags').fill('checkout')
      await page.getByRole('link', { name: 'checkout-v2' }).waitFor()
      await shot(page, 'flags-1280')
    },
    TIMEOUT,
  )

  test(
    'list switches send If-Match: a concurrent change is explained, nothing is overwritten, the row is reread',
    async () => {
      const definition = async () => (await api(srv, 'GET', '/api/v1/flags/checkout-v2/definition', { token: srv.adminToken })).body.flag
      const enabledSwitch = (on: boolean) => page.locator(`[role=switch][aria-label="Enabled: checkout-v2"][aria-checked=${on}]`)
      const refusal = page.getByRole('alert').filter({ hasText: 'Not switched' })
      await enabledSwitch(true).waitFor()

      // someone else changes the flag's value; this list still shows the version before
      let release = await holdFlagListReads(page)
      const other = await api(srv, 'PUT', '/api/v1/flags/checkout-v2', { token: srv.adminToken, body: { value: 'red' } })
      expect(other.status).toBe(200)
      const version = other.body.flag.version
      await enabledSwitch(true).click()
      await refusal.waitFor()
      expect(await refusal.textContent()).toContain(`it is at version ${version}, this list showed version ${version - 1}`)
      expect(await refusal.textContent()).toContain('the flag is on now')
      await release()
      // the row shows the server's copy; the server still has it
      await page.getByRole('row').filter({ hasText: '"red"' }).getByText(`v${version}`, { exact: true }).waitFor()
      expect(await enabledSwitch(true).count()).toBe(1)
      expect(await definition()).toMatchObject({ enabled: true, value: 'red', version })
      await shot(page, 'flags-conflict-1280')

      // switching again, at the version now shown, is applied
      await enabledSwitch(true).click()
      await enabledSwitch(false).waitFor()
      expect(await refusal.count()).toBe(0)
      expect(await definition()).toMatchObject({ enabled: false, version: version + 1 })
      await enabledSwitch(false).click()
      await enabledSwitch(true).waitFor()

      // an environment switch is checked the same way
      release = await holdFlagListReads(page)
      const again = await api(srv, 'PUT', '/api/v1/flags/checkout-v2', { token: srv.adminToken, body: { value: 'blue' } })
      await page.getByRole('switch', { name: 'production: checkout-v2' }).click()
      // production asks first (tests/e2e/console-switches.test.ts covers the question and Undo)
      await page
        .getByRole('dialog')
        .getByRole('button', { name: /^Switch (on|off) in production$/ })
        .click()
      await refusal.waitFor()
      expect(await refusal.textContent()).toContain('production is on (follows the flag) now')
      await release()
      expect(await definition()).toMatchObject({ version: again.body.flag.version, environments: { staging: { enabled: false } } })
    },
    TIMEOUT,
  )

  test(
    'sign-out forgets the token',
    async () => {
      await page.getByRole('button', { name: 'Sign out' }).click()
      await page.waitForURL('**/signin')
      expect(await page.evaluate(() => sessionStorage.getItem('flagship.token'))).toBeNull()
      await context.close()
    },
    TIMEOUT,
  )

  test('no console errors or uncaught exceptions', () => {
    expect(problems).toEqual([])
  })
})
