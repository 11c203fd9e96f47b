// End-to-end in Chromium: invitations in the console. The accept page says which email, project and role an
// invitation is for (and a dead link says so instead of a form); an accepted invitation leaves "Open
// invitations"; revoking one asks for confirmation first (Cancel keeps it).
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Browser, Page } from 'playwright-core'
import { browserSuite, launchChromium } from '../helpers/browser'
import { startServer, type TestServer } from '../helpers/server'
import { PASSWORD, sapi, setupOwner } from '../helpers/teams'

const TIMEOUT = 60_000
const OWNER = 'owner@example.com'

browserSuite('console: invitations', () => {
  let srv: TestServer
  let browser: Browser
  let page: Page
  let owner: string
  const problems: string[] = []

  const newPage = async () => {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    const p = await ctx.newPage()
    p.setDefaultTimeout(15_000)
    p.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`))
    // the browser logs every non-2xx fetch (a dead invitation's 410 included); the app reports those itself
    p.on(
      'console',
      (m) => void (m.type() === 'error' && !m.text().startsWith('Failed to load resource') && problems.push(`console: ${m.text()}`)),
    )
    return p
  }
  const openInvitations = () => page.getByRole('table', { name: 'Open invitations' })

  beforeAll(async () => {
    srv = await startServer()
    owner = await setupOwner(srv, OWNER)
    browser = await launchChromium()
    page = await newPage()
    await page.goto(`${srv.url}/signin`)
    await page.getByLabel('Email').fill(OWNER)
    await page.getByLabel('Password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
    await page.getByRole('heading', { name: 'Flags' }).waitFor()
  }, TIMEOUT)
  afterAll(async () => {
    await browser?.close()
    await srv?.stop()
  }, TIMEOUT)

  test(
    'the accept page names the email, project and role; once accepted, the invitation leaves "Open invitations"',
    async () => {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Members' }).click()
      await page.getByRole('heading', { name: 'Members' }).waitFor()
      await page.getByLabel('Email').fill('ivy@example.com')
      await page.getByLabel('Role', { exact: true }).selectOption('editor')
      await page.getByRole('button', { name: 'Invite', exact: true }).click()
      const link = await page.getByLabel('Invitation link').inputValue()
      await openInvitations().getByRole('cell', { name: 'ivy@example.com', exact: true }).waitFor()

      const ivy = await newPage()
      await ivy.goto(link)
      await ivy.getByRole('heading', { name: 'Accept your invitation' }).waitFor()
      const summary = ivy.getByLabel('This invitation')
      await summary.getByText('ivy@example.com').waitFor()
      const project = (await sapi(srv, 'GET', '/api/v1/projects', { cookie: owner })).body.projects.find(
        (p: { id: string }) => p.id === 'default',
      )
      expect(await summary.textContent()).toContain(`${project.name} (default) as editor`)
      await ivy.getByLabel('Your name').fill('Ivy Invitee')
      await ivy.getByLabel('Password').fill(PASSWORD)
      await ivy.getByRole('button', { name: 'Join' }).click()
      await ivy.getByRole('heading', { name: 'Flags' }).waitFor()

      await page.reload()
      await page.getByRole('row').filter({ hasText: 'Ivy Invitee' }).first().waitFor()
      expect(await openInvitations().count()).toBe(0)
      expect(await page.getByRole('button', { name: 'Revoke the invitation of ivy@example.com' }).count()).toBe(0)

      // The used link now says it is no longer valid (and shows nothing of the invitation).
      const again = await newPage()
      await again.goto(link)
      await again.getByRole('heading', { name: 'Invitation not valid' }).waitFor()
      expect(await again.getByText('ivy@example.com').count()).toBe(0)
      expect(await again.getByLabel('Password').count()).toBe(0)
      await again.context().close()
      await ivy.context().close()
    },
    TIMEOUT,
  )

  test(
    'revoking asks first: Cancel keeps the invitation, confirming withdraws it',
    async () => {
      await page.getByLabel('Email').fill('rex@example.com')
      await page.getByRole('button', { name: 'Invite', exact: true }).click()
      const link = await page.getByLabel('Invitation link').inputValue()
      const revoke = page.getByRole('button', { name: 'Revoke the invitation of rex@example.com' })
      await revoke.click()
      const dialog = page.getByRole('dialog', { name: 'Revoke the invitation of rex@example.com?' })
      await dialog.waitFor()
      await dialog.getByRole('button', { name: 'Cancel' }).click()
      await dialog.waitFor({ state: 'detached' })
      const token = link.split('/invite/')[1]!
      expect((await sapi(srv, 'POST', '/api/v1/auth/invitations/lookup', { body: { token } })).status).toBe(200)

      await revoke.click()
      await dialog.getByRole('button', { name: 'Revoke invitation' }).click()
      await revoke.waitFor({ state: 'detached' })
      expect((await sapi(srv, 'POST', '/api/v1/auth/invitations/lookup', { body: { token } })).status).toBe(410)
    },
    TIMEOUT,
  )

  test('no console errors or uncaught exceptions', () => {
    expect(problems).toEqual([])
  })
})
