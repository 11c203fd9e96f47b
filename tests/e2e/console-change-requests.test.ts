// End-to-end: change requests in the console, in a real Chromium against the real service (docs/change-
// requests.md §5): an admin protects production in the environment settings; an editor's Save becomes
// Propose change and lands on the request; the author is offered no Approve button; another editor finds it in
// the Changes inbox (with its live count) and approves; the author applies it; a request whose flag changed
// underneath shows the stale banner and cannot be applied; a config edit is proposed alike, commented on and
// rejected.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Browser, Page } from 'playwright-core'
import { browserSuite, launchChromium } from '../helpers/browser'
import { api } from '../helpers/server'
import { sapi } from '../helpers/teams'
import { startWithPeople, type People } from '../helpers/people'

const T = 60_000
const ADMIN = 'admin@example.com'
const ALICE = 'alice@example.com'
const BOB = 'bob@example.com'

browserSuite('console: change requests', () => {
  let p: People
  let browser: Browser
  const problems: string[] = []
  const flag = async (key: string) => (await api(p.srv, 'GET', `/api/v1/flags/${key}/definition`, { token: p.srv.adminToken })).body.flag

  /** A browser page signed in as `who` (their session cookie), at `path`. */
  async function pageOf(who: string, path: string): Promise<Page> {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    const [name, value] = p.cookies[who]!.split('=') as [string, string]
    await ctx.addCookies([{ name, value, url: p.srv.url }])
    const page = await ctx.newPage()
    page.setDefaultTimeout(15_000)
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`))
    page.on('console', (m) => {
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(`console: ${m.text()}`)
    })
    await page.goto(`${p.srv.url}${path}`)
    return page
  }

  beforeAll(async () => {
    p = await startWithPeople([
      { email: ADMIN, role: 'admin' },
      { email: ALICE, role: 'editor' },
      { email: BOB, role: 'editor' },
    ])
    for (const key of ['checkout', 'banner'])
      expect((await api(p.srv, 'POST', '/api/v1/flags', { token: p.srv.adminToken, body: { key, enabled: false } })).status).toBe(201)
    expect(
      (await api(p.srv, 'POST', '/api/v1/configs', { token: p.srv.adminToken, body: { key: 'limits', value: { max: 1 } } })).status,
    ).toBe(201)
    browser = await launchChromium()
  }, 2 * T)
  afterAll(async () => {
    await browser?.close()
    await p?.stop()
  }, T)

  test(
    'an admin protects production in the environment settings',
    async () => {
      const page = await pageOf(ADMIN, '/settings')
      const row = page.getByRole('listitem', { name: 'Policy production' })
      await row.getByLabel('Protect production').check()
      await row.getByRole('button', { name: 'Save policy' }).click()
      // saved and read back: nothing left to save
      await row.locator('button:disabled', { hasText: 'Save policy' }).waitFor()
      expect((await api(p.srv, 'GET', '/api/v1/project/environments/production/policy', { token: p.srv.adminToken })).body.protected).toBe(
        true,
      )
      await page.context().close()
    },
    T,
  )

  test(
    'propose → self-approval refused → another user approves → apply',
    async () => {
      const alice = await pageOf(ALICE, '/flags/checkout')
      await alice.getByRole('switch', { name: 'Main switch' }).click()
      await alice.getByRole('button', { name: 'Propose change' }).click()
      const dialog = alice.getByRole('dialog', { name: 'Propose change' })
      await dialog.getByLabel('Title').fill('Open checkout to everyone')
      await dialog.getByRole('button', { name: 'Propose', exact: true }).click()
      await alice.waitForURL('**/changes/*')
      await alice.getByRole('heading', { name: 'Open checkout to everyone' }).waitFor()
      expect(await alice.getByLabel('State').textContent()).toBe('open')
      const id = alice.url().split('/').pop()!
      expect((await flag('checkout')).enabled).toBe(false)

      // the author is offered no approval (the server would refuse it: SELF_APPROVAL), and is told why
      await alice.getByRole('note', { name: 'Why no approval' }).filter({ hasText: 'someone else must approve it' }).waitFor()
      expect(await alice.getByRole('button', { name: 'Approve' }).count()).toBe(0)

      // another editor finds it in the inbox (the live count says so) and approves
      const bob = await pageOf(BOB, '/changes')
      await bob.getByRole('navigation', { name: 'Main' }).getByLabel('1 awaiting your review').waitFor()
      await bob.getByRole('link', { name: 'Open checkout to everyone' }).click()
      await bob.getByRole('region', { name: 'Item 1' }).getByText('enabled').first().waitFor()
      await bob.getByRole('button', { name: 'Approve' }).click()
      await bob.getByLabel('State').filter({ hasText: 'approved' }).waitFor()

      // the author applies it
      await alice.reload()
      await alice.getByRole('button', { name: 'Apply now' }).click()
      await alice.getByText(/Applied .*approved by bob@example\.com/).waitFor()
      expect((await flag('checkout')).enabled).toBe(true)
      expect(
        (await sapi(p.srv, 'GET', `/api/v1/change-requests/${id}`, { cookie: p.cookies[ALICE], project: 'default' })).body.change_request
          .state,
      ).toBe('applied')
      await alice.context().close()
      await bob.context().close()
    },
    T,
  )

  test(
    'a request whose flag changed underneath shows the stale banner and cannot be applied',
    async () => {
      const as = (who: string, method: string, path: string, body?: unknown) =>
        sapi(p.srv, method, path, { cookie: p.cookies[who], project: 'default', body })
      const created = await as(ALICE, 'POST', '/api/v1/change-requests', {
        title: 'Banner on',
        items: [{ resource_type: 'flag', key: 'banner', action: 'update', body: { enabled: true } }],
      })
      const id = created.body.change_request.id
      expect((await as(BOB, 'POST', `/api/v1/change-requests/${id}/reviews`, { decision: 'approve', revision: 1 })).status).toBe(200)
      // the flag changes underneath, in an unprotected environment
      expect(
        (await api(p.srv, 'PUT', '/api/v1/flags/banner/environments/staging', { token: p.srv.adminToken, body: { enabled: true } })).status,
      ).toBe(200)
      const alice = await pageOf(ALICE, `/changes/${id}`)
      const banner = alice.getByRole('alert', { name: 'Stale' })
      await banner.waitFor()
      expect(await banner.textContent()).toContain('written against version 1, now 2')
      expect(await alice.getByRole('button', { name: 'Apply now' }).isDisabled()).toBe(true)
      await alice.context().close()
    },
    T,
  )

  test(
    'a config edit is proposed too; another user comments, then rejects; nothing is written',
    async () => {
      const alice = await pageOf(ALICE, '/configs/limits')
      await alice.getByRole('textbox', { name: 'Value', exact: true }).fill('{ "max": 7 }')
      await alice.getByRole('button', { name: 'Propose change' }).click()
      const dialog = alice.getByRole('dialog', { name: 'Propose change' })
      await dialog.getByLabel('Title').fill('Raise the limit')
      await dialog.getByRole('button', { name: 'Propose', exact: true }).click()
      await alice.waitForURL('**/changes/*')
      const id = alice.url().split('/').pop()!
      await alice.context().close()

      const bob = await pageOf(BOB, `/changes/${id}`)
      await bob.getByRole('heading', { name: 'Raise the limit' }).waitFor()
      await bob.getByLabel('Comment').fill('Seven is too many')
      await bob.getByRole('button', { name: 'Comment', exact: true }).click()
      await bob.getByRole('region', { name: 'Reviews' }).getByText('Seven is too many').waitFor()
      await bob.getByRole('button', { name: 'Reject' }).click()
      await bob.getByLabel('State').filter({ hasText: 'rejected' }).waitFor()
      expect(await bob.getByRole('button', { name: 'Apply now' }).count()).toBe(0)
      expect((await api(p.srv, 'GET', '/api/v1/configs/limits/definition', { token: p.srv.adminToken })).body.config.value).toEqual({
        max: 1,
      })
      await bob.context().close()
    },
    T,
  )

  test('no page errors', () => {
    expect(problems).toEqual([])
  })
})
