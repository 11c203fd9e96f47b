// The console in Chromium for what operators and admins read: the sidebar's project selector is legible
// (its text contrasts with its own background), an optional JSON value shows no error while empty (nor
// before anything is typed), the project audit log names a member by name and email (not their user id),
// and instance owners and admins have the instance audit log (sign-ins, failures, users), filterable and
// linked from the navigation.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Browser, Page } from 'playwright-core'
import { browserSuite, launchChromium } from '../helpers/browser'
import { api, createToken, startServer, type TestServer } from '../helpers/server'
import { runCli } from '../helpers/cli'
import { sapi, setupOwner } from '../helpers/teams'
import { until } from '../helpers/until'

const T = 60_000

/** WCAG contrast ratio of two CSS rgb()/rgba() colours (opaque). */
function contrast(a: string, b: string): number {
  const lum = (c: string) => {
    const [r, g, bl] = c
      .match(/\d+(\.\d+)?/g)!
      .slice(0, 3)
      .map(Number)
      .map((v) => {
        const s = v / 255
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4
      })
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * bl!
  }
  const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p)
  return (x! + 0.05) / (y! + 0.05)
}

browserSuite('console: operations and admin pages', () => {
  let srv: TestServer
  let browser: Browser
  let owner: string
  let annId: string

  beforeAll(async () => {
    srv = await startServer({ env: { RECONCILE_INTERVAL_MS: '200' } })
    browser = await launchChromium()
    owner = await setupOwner(srv)
    await api(srv, 'POST', '/api/v1/flags', { token: srv.adminToken, body: { key: 'checkout', enabled: true, value: true } })
    // Ann joins project default; someone fails to sign in as her.
    expect(runCli(srv, 'users', 'create', '--email', 'ann@example.com', '--name', 'Ann Example').code).toBe(0)
    // The CLI wrote to the database; the running service sees it at its next reconcile.
    annId = await until(
      'Ann in the user list',
      async () =>
        ((await sapi(srv, 'GET', '/api/v1/admin/users', { cookie: owner })).body.users as { id: string; email: string }[]).find(
          (u) => u.email === 'ann@example.com',
        )?.id,
    )
    expect(
      (await sapi(srv, 'PUT', `/api/v1/project/members/${annId}`, { cookie: owner, project: 'default', body: { role: 'editor' } })).status,
    ).toBe(200)
    expect(
      (await sapi(srv, 'POST', '/api/v1/auth/login', { body: { email: 'ann@example.com', password: 'not her password at all' } })).status,
    ).toBe(401)
  }, T)
  afterAll(async () => {
    await browser?.close()
    await srv?.stop()
  })

  /** A page signed in as the owner (their session cookie), at `path`. */
  async function asOwner(path: string): Promise<Page> {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    const [name, ...value] = owner.split('=')
    await ctx.addCookies([{ name: name!, value: value.join('='), url: srv.url }])
    const page = await ctx.newPage()
    page.setDefaultTimeout(15_000)
    await page.goto(`${srv.url}${path}`)
    return page
  }

  test(
    'the project selector in the sidebar is legible (contrast of at least 4.5:1)',
    async () => {
      const page = await asOwner('/')
      const select = page.getByRole('combobox', { name: 'Project' })
      await select.waitFor()
      expect(await select.inputValue()).toBe('default')
      const { color, background } = await select.evaluate((el) => {
        const s = getComputedStyle(el)
        return { color: s.color, background: s.backgroundColor }
      })
      expect(contrast(color, background)).toBeGreaterThanOrEqual(4.5)
      await page.context().close()
    },
    T,
  )

  test(
    'an empty optional value shows no error, before or after typing; a bad one does',
    async () => {
      // A token that may change staging only: the flag page edits each such environment alone, its value
      // optional (empty: the flag's value).
      const token = await createToken(srv, ['read:flags', 'write:flags'], { environments: ['staging'] })
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
      page.setDefaultTimeout(15_000)
      await page.goto(`${srv.url}/signin`)
      // With people on the service, the token sign-in is folded away.
      await page.getByText('Use an API token').click()
      await page.getByLabel('Access token').fill(token)
      await page.getByRole('button', { name: 'Sign in with token' }).click()
      await page.getByRole('button', { name: 'Sign out' }).waitFor()
      await page.goto(`${srv.url}/flags/checkout`)
      const box = page.getByRole('textbox', { name: 'Value in staging', exact: true })
      await box.waitFor()
      expect(await box.inputValue()).toBe('')
      expect(await box.getAttribute('aria-invalid')).toBe('false')
      expect(await page.getByText('Enter a JSON value').count()).toBe(0)
      expect(await page.getByText("Empty: the flag's value.").count()).toBe(1)
      await box.fill('{oops')
      await page.getByText('Invalid JSON').first().waitFor()
      expect(await box.getAttribute('aria-invalid')).toBe('true')
      await box.fill('')
      await page.getByText("Empty: the flag's value.").waitFor()
      expect(await page.getByText('Enter a JSON value').count()).toBe(0)
      expect(await box.getAttribute('aria-invalid')).toBe('false')
      await page.close()
    },
    T,
  )

  test(
    'the audit log names a member by name and email, not their user id',
    async () => {
      const page = await asOwner('/audit')
      const row = page.getByRole('row').filter({ hasText: 'member' }).first()
      await row.waitFor()
      expect(await row.textContent()).toContain('Ann Example')
      expect(await row.textContent()).toContain('ann@example.com')
      expect(await row.textContent()).not.toContain(annId)
      await page.context().close()
    },
    T,
  )

  test(
    'the instance audit log: linked from the navigation, naming people, filterable by action, kind, person and time',
    async () => {
      const page = await asOwner('/account')
      // "Instance log" in the navigation (a name that no test's "Audit log" link lookup also matches).
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Instance log', exact: true }).click()
      await page.getByRole('heading', { name: 'Instance audit log' }).waitFor()
      const rows = page.getByRole('table', { name: 'Instance audit entries' }).getByRole('row')
      await rows.filter({ hasText: 'sign_in_failed' }).first().waitFor()
      // Ann's account (created by the CLI) is named by her name and email, not her id.
      const created = rows.filter({ hasText: 'create' }).filter({ hasText: 'Ann Example' })
      expect(await created.count()).toBeGreaterThanOrEqual(1)
      expect(await page.getByRole('table', { name: 'Instance audit entries' }).textContent()).not.toContain(annId)

      const filters = page.getByRole('form', { name: 'Instance audit filters' })
      const apply = () => filters.getByRole('button', { name: 'Apply filters' }).click()
      const bodyRows = () => page.getByRole('table', { name: 'Instance audit entries' }).locator('tbody tr')
      await filters.getByLabel('Action').selectOption('sign_in_failed')
      await apply()
      await page.waitForFunction(() =>
        [...document.querySelectorAll('table tbody tr')].every((r) => r.textContent!.includes('sign_in_failed')),
      )
      expect(await bodyRows().count()).toBe(1)
      expect(await bodyRows().first().textContent()).toContain('ann@example.com')

      await filters.getByLabel('Action').selectOption('')
      await filters.getByLabel('Kind').selectOption('user')
      await filters.getByLabel('Person (email)').fill('owner@example.com')
      await apply()
      await page.waitForFunction(() => [...document.querySelectorAll('table tbody tr')].every((r) => !r.textContent!.includes('sign_in')))
      for (const text of await bodyRows().allTextContents()) expect(text).toContain('user')

      // Until a day long past: nothing.
      await filters.getByLabel('Kind').selectOption('')
      await filters.getByLabel('Person (email)').fill('')
      await filters.getByLabel('Until').fill('2020-01-01')
      await apply()
      await page.getByText('No entries match these filters').waitFor()
      await page.context().close()
    },
    T,
  )
})
