// End-to-end: protection that keeps the exits open, in a real Chromium against the real service
// (docs/change-requests.md §1, §5): a request's diff shows what changed and not the bookkeeping (version,
// updated_at); Turn off everywhere works under protection and is listed as applied without review; a
// project admin applies a blocked change without review with a reason (an editor is not offered it); the
// import and compare pages offer Propose where apply is refused; a person who cannot propose is told why.
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
const DAVE = 'dave@example.com' // editor, but a viewer in production
const REASON = 'incident 12: checkout errors for everyone'

browserSuite('console: protection keeps the exits open', () => {
  let p: People
  let browser: Browser
  const problems: string[] = []
  const asToken = (method: string, path: string, body?: unknown) => api(p.srv, method, path, { token: p.srv.adminToken, body })
  const flag = async (key: string) => (await asToken('GET', `/api/v1/flags/${key}/definition`)).body.flag

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
      { email: DAVE, role: 'editor', environments: { production: 'viewer' } },
    ])
    for (const key of ['checkout', 'banner', 'search']) {
      expect((await asToken('POST', '/api/v1/flags', { key, enabled: true, value: true })).status).toBe(201)
      expect((await asToken('PUT', `/api/v1/flags/${key}/environments/production`, { enabled: true })).status).toBe(200)
    }
    expect((await asToken('PUT', '/api/v1/flags/search/environments/staging', { enabled: false, value: false })).status).toBe(200)
    const policy = await sapi(p.srv, 'PUT', '/api/v1/project/environments/production/policy', {
      cookie: p.cookies[ADMIN],
      project: 'default',
      body: { protected: true, required_approvals: 1, approver_role: 'editor' },
    })
    expect(policy.status).toBe(200)
    browser = await launchChromium()
  }, 2 * T)
  afterAll(async () => {
    await browser?.close()
    await p?.stop()
  }, T)

  test(
    "a request's diff lists what it changes, not version or updated_at",
    async () => {
      const created = await sapi(p.srv, 'POST', '/api/v1/change-requests', {
        cookie: p.cookies[ALICE],
        project: 'default',
        body: {
          title: 'Describe banner',
          items: [{ resource_type: 'flag', key: 'banner', action: 'update', body: { description: 'the top banner' } }],
        },
      })
      expect(created.status).toBe(201)
      const bob = await pageOf(BOB, `/changes/${created.body.change_request.id}`)
      const item = bob.getByRole('region', { name: 'Item 1' })
      await item.getByText('the top banner').first().waitFor()
      const text = (await item.textContent()) ?? ''
      expect(text).not.toContain('updated_at')
      expect(text).not.toContain('version')
      await bob.getByRole('button', { name: 'Approve' }).waitFor()
      await bob.context().close()
    },
    T,
  )

  test(
    'Turn off everywhere works under protection and is listed as applied without review',
    async () => {
      const alice = await pageOf(ALICE, '/flags/checkout')
      await alice.getByRole('button', { name: 'Turn off everywhere' }).click()
      await alice.getByRole('dialog').getByRole('button', { name: 'Turn off everywhere' }).click()
      await alice.getByRole('dialog').waitFor({ state: 'detached' })
      const after = await flag('checkout')
      expect([after.enabled, after.environments.production.enabled]).toEqual([false, false])
      await alice.goto(`${p.srv.url}/changes`)
      await alice.getByRole('button', { name: 'Applied without review' }).click()
      const listed = alice.getByRole('list', { name: 'Applied without review' })
      await listed.getByText('emergency off').waitFor()
      expect(await listed.getByRole('link', { name: 'checkout' }).count()).toBe(1)
      await alice.context().close()
    },
    T,
  )

  test(
    'an editor is offered Propose only; a project admin may apply without review with a reason',
    async () => {
      const alice = await pageOf(ALICE, '/flags/banner')
      await alice.getByLabel('Description').fill('changed by alice')
      await alice.getByRole('button', { name: 'Propose change' }).click()
      const aliceDialog = alice.getByRole('dialog', { name: 'Propose change' })
      await aliceDialog.getByLabel('Title').waitFor()
      expect(await aliceDialog.getByRole('button', { name: 'Apply without review' }).count()).toBe(0)
      await alice.context().close()

      const admin = await pageOf(ADMIN, '/flags/banner')
      await admin.getByLabel('Description').fill('changed in an incident')
      await admin.getByRole('button', { name: 'Propose change' }).click()
      const dialog = admin.getByRole('dialog', { name: 'Propose change' })
      await dialog.getByRole('button', { name: 'Apply without review' }).click()
      await dialog.getByLabel('Reason for applying without review').fill('too short')
      expect(await dialog.getByRole('button', { name: 'Apply without review now' }).isDisabled()).toBe(true)
      await dialog.getByLabel('Reason for applying without review').fill(REASON)
      await dialog.getByRole('button', { name: 'Apply without review now' }).click()
      await dialog.waitFor({ state: 'detached' })
      expect((await flag('banner')).description).toBe('changed in an incident')
      const entry = (await asToken('GET', '/api/v1/audit?resource_type=flag&resource_key=banner')).body.entries[0]
      expect(entry).toMatchObject({ actor: ADMIN, details: { bypass_reason: REASON } })
      await admin.context().close()
    },
    T,
  )

  test(
    'import: Propose where apply is refused, landing on the request',
    async () => {
      const admin = await pageOf(ADMIN, '/import-export')
      await admin
        .getByRole('textbox', { name: 'Document', exact: true })
        .fill('flagship: 1\nflags:\n  - key: fresh\n    enabled: true\n    value: true\n')
      await admin.getByRole('button', { name: 'Plan' }).click()
      await admin.getByTestId('plan-summary').filter({ hasText: '1 to create' }).waitFor()
      await admin.getByRole('button', { name: 'Apply', exact: true }).click()
      const offer = admin.getByRole('note', { name: 'Propose instead' })
      await offer.waitFor()
      await offer.getByRole('button', { name: 'Propose' }).click()
      await admin.waitForURL('**/changes/*')
      await admin.getByRole('heading', { name: 'Import of 1 change' }).waitFor()
      expect((await asToken('GET', '/api/v1/flags/fresh/definition')).status).toBe(404)
      await admin.context().close()
    },
    T,
  )

  test(
    'compare: Propose where a promotion into production is refused',
    async () => {
      const bob = await pageOf(BOB, '/compare')
      await bob.getByRole('button', { name: 'Promote flag search' }).click()
      const offer = bob.getByRole('note', { name: 'Propose instead' })
      await offer.waitFor()
      await offer.getByRole('button', { name: 'Propose' }).click()
      await bob.waitForURL('**/changes/*')
      const id = bob.url().split('/').pop()!
      const cr = (await asToken('GET', `/api/v1/change-requests/${id}`)).body.change_request
      expect(cr.items).toEqual([
        expect.objectContaining({
          key: 'search',
          action: 'set_override',
          environment: 'production',
          body: { enabled: false, value: false },
        }),
      ])
      expect(cr.environments).toEqual(['production'])
      // an editor's refusal offers no break glass
      await bob.goto(`${p.srv.url}/compare`)
      await bob.getByRole('button', { name: 'Promote flag search' }).click()
      await bob.getByRole('note', { name: 'Propose instead' }).waitFor()
      expect(await bob.getByRole('button', { name: 'Apply without review' }).count()).toBe(0)
      await bob.context().close()
    },
    T,
  )

  test(
    'a blocked change shows a project admin Apply without review in its error, and applies with the reason',
    async () => {
      expect((await asToken('PUT', '/api/v1/flags/banner/environments/staging', { enabled: false, value: false })).status).toBe(200)
      const admin = await pageOf(ADMIN, '/compare')
      await admin.getByRole('button', { name: 'Promote flag banner' }).click()
      const alert = admin.getByRole('alert').filter({ hasText: 'CHANGE_REQUEST_REQUIRED' })
      await alert.getByRole('button', { name: 'Apply without review' }).click()
      await alert.getByLabel('Reason for applying without review').fill(REASON)
      await alert.getByRole('button', { name: 'Apply without review now' }).click()
      await admin.getByText('Applied without review.').waitFor()
      expect((await flag('banner')).environments.production).toEqual({ enabled: false, value: false })
      await admin.context().close()
    },
    T,
  )

  test(
    'a person who may not change production (nor propose to it) is told why and who can change that',
    async () => {
      const dave = await pageOf(DAVE, '/flags/search')
      await dave.getByText(/proposing a change to it, takes write rights there: a project admin can give you them under Members/).waitFor()
      await dave.getByRole('listitem', { name: 'production (read-only)' }).waitFor()
      await dave.context().close()
    },
    T,
  )

  test('no page errors', () => {
    expect(problems).toEqual([])
  })
})
