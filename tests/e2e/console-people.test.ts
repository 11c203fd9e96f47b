// End-to-end: people in the console, in a real Chromium against the real service and a real OpenID provider
// (oidc-provider under Node): first-run setup with the setup code, sign-out and password sign-in, single
// sign-on through the provider's own pages, the Account page (sessions, password, two-factor set-up with its QR
// code and a sign-in that asks for the code), Projects, Members with an invitation accepted at /invite/<token>,
// Users (disabling ends a session; a password-reset link at /reset/<token>), the project switcher, and what
// a viewer and an environment-limited editor see of a flag (read-only views).
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Browser, Page } from 'playwright-core'
import { browserSuite, launchChromium } from '../helpers/browser'
import { api, type TestServer } from '../helpers/server'
import { ssoSignIn as ssoHttp, startSsoPair, type TestProvider } from '../helpers/oidc-provider'
import { runCli } from '../helpers/cli'
import { PASSWORD, sapi, setupCodeOf, signIn as signInApi } from '../helpers/teams'

const TIMEOUT = 60_000
const OWNER = 'owner@example.com'
const NEW_PASSWORD = 'a brand new passphrase 2026'

browserSuite('console: people, sign-in and single sign-on', () => {
  let srv: TestServer
  let provider: TestProvider
  let browser: Browser
  let page: Page
  let ivyPage: Page
  const problems: string[] = []
  /** the session cookie of the main page's browser (the owner's), for API checks */
  const ownerCookie = async () => {
    const c = (await page.context().cookies()).find((k) => k.name === 'flagship_session')!
    return `${c.name}=${c.value}`
  }

  const newPage = async () => {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    const p = await ctx.newPage()
    p.setDefaultTimeout(15_000)
    p.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`))
    p.on('console', (m) => {
      // the browser logs every non-2xx fetch (the app reports those itself); the provider's page asks for a web font
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource') && !p.url().startsWith(provider.issuer))
        problems.push(`console: ${m.text()}`)
    })
    return p
  }

  beforeAll(async () => {
    ;({ srv, provider } = await startSsoPair(
      {
        OIDC_NAME: 'Acme SSO',
        OIDC_AUTO_CREATE: 'true',
        RECONCILE_INTERVAL_MS: '200',
        OIDC_ROLE_MAP: JSON.stringify({
          viewers: { projects: { default: { role: 'viewer' } } },
          limited: { projects: { default: { role: 'editor', environments: { production: 'viewer' } } } },
          both: { projects: { default: { role: 'editor' }, mobile: { role: 'admin' } } },
        }),
      },
      {
        vic: { email: 'vic@example.com', email_verified: true, name: 'Vic Viewer', groups: ['viewers'] },
        eli: { email: 'eli@example.com', email_verified: true, name: 'Eli Limited', groups: ['limited'] },
        bo: { email: 'bo@example.com', email_verified: true, name: 'Bo Both', groups: ['both'] },
      },
    ))
    browser = await launchChromium()
    page = await newPage()
    const flag = await api(srv, 'POST', '/api/v1/flags', { token: srv.adminToken, body: { key: 'checkout', value: true, enabled: true } })
    expect(flag.status).toBe(201)
  }, TIMEOUT)
  afterAll(async () => {
    await browser?.close()
    await srv?.stop()
    await provider?.stop()
  }, TIMEOUT)

  const signOut = async (p: Page) => {
    await p.getByRole('button', { name: 'Sign out' }).click()
    await p.waitForURL('**/signin')
  }

  test(
    'first run: the sign-in page offers setup; the setup code makes the owner, signed in',
    async () => {
      await page.goto(`${srv.url}/`)
      await page.waitForURL('**/signin')
      await page.getByRole('link', { name: 'Set up the first owner account' }).click()
      await page.waitForURL('**/setup')
      await page.getByLabel('Setup code').fill('wrong-code-wrong-code')
      await page.getByLabel('Your name').fill('Olive Owner')
      await page.getByLabel('Email').fill(OWNER)
      await page.getByLabel('Password').fill(PASSWORD)
      await page.getByRole('button', { name: 'Create owner account' }).click()
      await page.getByRole('alert').filter({ hasText: 'Setup failed' }).waitFor()
      await page.getByLabel('Setup code').fill(setupCodeOf(srv))
      await page.getByRole('button', { name: 'Create owner account' }).click()
      await page.getByRole('heading', { name: 'Flags' }).waitFor()
      await page.getByText('Olive Owner').waitFor()
      expect(await page.getByRole('combobox', { name: 'Project' }).inputValue()).toBe('default')
      for (const name of ['Flags', 'Members', 'Users', 'Projects', 'Account'])
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name }).waitFor()
      // the session is an HttpOnly cookie: nothing in storage, nothing the page's script can read
      expect(await page.evaluate(() => [sessionStorage.getItem('flagship.token'), document.cookie])).toEqual([null, ''])
    },
    TIMEOUT,
  )

  test(
    'sign-out, then password sign-in; a wrong password says so',
    async () => {
      await signOut(page)
      await page.getByLabel('Email').fill(OWNER)
      await page.getByLabel('Password').fill('not the password at all')
      await page.getByRole('button', { name: 'Sign in', exact: true }).click()
      await page.getByRole('alert').filter({ hasText: 'Wrong email or password' }).waitFor()
      await page.getByLabel('Password').fill(PASSWORD)
      await page.getByRole('button', { name: 'Sign in', exact: true }).click()
      await page.getByRole('heading', { name: 'Flags' }).waitFor()
    },
    TIMEOUT,
  )

  test(
    'Account: where you are signed in (another session can be ended), and a password change',
    async () => {
      const other = await signInApi(srv, OWNER)
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Account' }).click()
      const sessions = page.getByRole('table', { name: 'Your sessions' })
      await sessions.getByText('this browser').waitFor()
      // a header row and one row per session: this one and the other
      await sessions.getByRole('row').nth(2).waitFor()
      expect(await sessions.getByRole('row').count()).toBe(3)
      await sessions.getByRole('button', { name: 'Sign out' }).click()
      await sessions.getByRole('row').nth(2).waitFor({ state: 'detached' })
      expect((await sapi(srv, 'GET', '/api/v1/me', { cookie: other })).status).toBe(401)

      await page.getByLabel('Current password').fill('not my password at all')
      await page.getByLabel('New password').fill(NEW_PASSWORD)
      await page.getByRole('button', { name: 'Change password' }).click()
      await page.getByRole('alert').filter({ hasText: 'The current password is wrong' }).waitFor()
      await page.getByLabel('Current password').fill(PASSWORD)
      await page.getByRole('button', { name: 'Change password' }).click()
      await page.getByText('Password changed.').waitFor()
      await signOut(page)
      await page.getByLabel('Email').fill(OWNER)
      await page.getByLabel('Password').fill(NEW_PASSWORD)
      await page.getByRole('button', { name: 'Sign in', exact: true }).click()
      await page.getByRole('heading', { name: 'Flags' }).waitFor()
    },
    TIMEOUT,
  )

  test(
    'two-factor set-up shows a QR code; the next sign-in asks for a code (a recovery code in its place)',
    async () => {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Account' }).click()
      await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click()
      const qr = page.getByRole('img', { name: 'QR code for your authenticator app' })
      await qr.waitFor()
      expect(await qr.getAttribute('src')).toMatch(/^data:image\/png;base64,/)
      expect(await qr.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(100)
      const secret = (await page.getByLabel('Two-factor secret').textContent())!
      const { totpCode } = await import('../../server/identity/totp')
      await page.getByLabel('Code from the app').fill('12345')
      await page.getByRole('button', { name: 'Turn on' }).click()
      await page.getByRole('alert').filter({ hasText: 'Code not accepted' }).waitFor()
      await page.getByLabel('Code from the app').fill(totpCode(secret))
      await page.getByRole('button', { name: 'Turn on' }).click()
      const codes = page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem')
      await codes.first().waitFor()
      expect(await codes.count()).toBe(10)
      const recovery = (await codes.first().textContent())!

      await signOut(page)
      await page.getByLabel('Email').fill(OWNER)
      await page.getByLabel('Password').fill(NEW_PASSWORD)
      await page.getByRole('button', { name: 'Sign in', exact: true }).click()
      await page.getByLabel('Two-factor code').fill(recovery)
      await page.getByRole('button', { name: 'Sign in', exact: true }).click()
      await page.getByRole('heading', { name: 'Flags' }).waitFor()
    },
    TIMEOUT,
  )

  test(
    'Account: a personal token is shown once, works for its project, and stops when revoked',
    async () => {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Account' }).click()
      const card = page.getByRole('region', { name: 'Personal access tokens' })
      await card.getByLabel('Name', { exact: true }).fill('laptop script')
      await card.getByRole('button', { name: 'Create personal token' }).click()
      const token = await card.getByLabel('New personal token').inputValue()
      expect(token).toMatch(/^ff_[a-z0-9]{4}_[A-Za-z0-9]{20}$/)
      expect((await api(srv, 'GET', '/api/v1/flags', { token })).status).toBe(200)
      // only read:flags was asked for
      expect((await api(srv, 'POST', '/api/v1/flags', { token, body: { key: 'nope', value: true } })).status).toBe(403)
      const row = card.getByRole('row').filter({ hasText: 'laptop script' })
      // A read-only personal token is a production key by default, like the Tokens page's (environments.md §2).
      await row.getByRole('cell', { name: 'production', exact: true }).waitFor()
      const mismatch = await api(srv, 'POST', '/api/v1/evaluate', { token, body: { context: { environment: 'staging' } } })
      expect([mismatch.status, mismatch.body.code]).toEqual([403, 'ENVIRONMENT_MISMATCH'])
      // Another environment is picked, or none.
      await card.getByLabel('Name', { exact: true }).fill('staging script')
      await card.getByLabel('Environment of the key').selectOption('staging')
      await card.getByRole('button', { name: 'Create personal token' }).click()
      await card.getByRole('row').filter({ hasText: 'staging script' }).getByRole('cell', { name: 'staging', exact: true }).waitFor()
      await card.getByLabel('Name', { exact: true }).fill('any script')
      await card.getByRole('radio', { name: /Any environment/ }).check()
      await card.getByRole('button', { name: 'Create personal token' }).click()
      await card.getByRole('row').filter({ hasText: 'any script' }).getByRole('cell', { name: 'any', exact: true }).waitFor()
      await row.getByRole('button', { name: 'Revoke' }).click()
      await row.waitFor({ state: 'detached' })
      expect((await api(srv, 'GET', '/api/v1/flags', { token })).status).toBe(401)
    },
    TIMEOUT,
  )

  test(
    'Projects: an instance admin creates a project; the switcher lists it',
    async () => {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Projects' }).click()
      await page.getByRole('heading', { name: 'Projects' }).waitFor()
      await page.getByLabel('Name').fill('Shop')
      await page.getByLabel('Slug').fill('shop')
      await page.getByRole('button', { name: 'Create project' }).click()
      await page.getByRole('table', { name: 'Projects' }).getByText('shop', { exact: true }).waitFor()
      await page.getByRole('combobox', { name: 'Project' }).locator('option', { hasText: 'Shop' }).waitFor({ state: 'attached' })
    },
    TIMEOUT,
  )

  test(
    'Members: an invitation link is shown once; the invitee joins with a password and gets the role; the grid limits an environment',
    async () => {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Members' }).click()
      await page.getByRole('heading', { name: 'Members' }).waitFor()
      await page.getByLabel('Email').fill('ivy@example.com')
      await page.getByLabel('Role', { exact: true }).selectOption('editor')
      await page.getByRole('button', { name: 'Invite' }).click()
      const link = await page.getByLabel('Invitation link').inputValue()
      expect(link).toMatch(new RegExp(`^${srv.url}/invite/[A-Za-z0-9_-]+$`))

      const ivy = await newPage()
      await ivy.goto(link)
      await ivy.getByRole('heading', { name: 'Accept your invitation' }).waitFor()
      await ivy.getByLabel('Your name').fill('Ivy Invitee')
      await ivy.getByLabel('Password').fill(PASSWORD)
      await ivy.getByRole('button', { name: 'Join' }).click()
      await ivy.getByRole('heading', { name: 'Flags' }).waitFor()
      expect(await ivy.getByRole('list', { name: 'Your roles' }).textContent()).toContain('project: editor')
      // the link works once
      const again = await newPage()
      await again.goto(link)
      await again.getByRole('heading', { name: 'Invitation not valid' }).waitFor()
      await again.context().close()

      await page.reload()
      const row = page.getByRole('row').filter({ hasText: 'ivy@example.com' })
      await row.getByLabel('Ivy Invitee in production').selectOption('viewer')
      await row.getByRole('button', { name: 'Save' }).click()
      await row.getByRole('button', { name: 'Save' }).and(page.locator(':disabled')).waitFor()
      const members = await sapi(srv, 'GET', '/api/v1/project/members', { cookie: await ownerCookie(), project: 'default' })
      expect(members.body.members.find((m: { user: { email: string } }) => m.user.email === 'ivy@example.com')).toMatchObject({
        role: 'editor',
        environments: { production: 'viewer' },
      })
      ivyPage = ivy
    },
    TIMEOUT,
  )

  test(
    'Users: disabling a person ends their session at once',
    async () => {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users' }).click()
      await page.getByRole('button', { name: 'Disable Ivy Invitee' }).click()
      await page.getByRole('button', { name: 'Enable Ivy Invitee' }).waitFor()
      await ivyPage.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Configs' }).click()
      await ivyPage.waitForURL('**/signin**')
      await ivyPage.getByText('Your session ended').waitFor()
      await ivyPage.context().close()
    },
    TIMEOUT,
  )

  test(
    'Users: a password-reset link sets a new password once',
    async () => {
      await page.getByRole('button', { name: 'Enable Ivy Invitee' }).click()
      await page.getByRole('button', { name: 'Disable Ivy Invitee' }).waitFor()
      await page.getByRole('button', { name: 'Password-reset link for Ivy Invitee' }).click()
      const link = await page.getByLabel('Password-reset link', { exact: true }).inputValue()
      expect(link).toMatch(new RegExp(`^${srv.url}/reset/[A-Za-z0-9_-]+$`))
      const ivy = await newPage()
      await ivy.goto(link)
      await ivy.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD)
      await ivy.getByRole('button', { name: 'Set password' }).click()
      await ivy.getByRole('link', { name: 'Go to sign-in' }).click()
      await ivy.getByLabel('Email').fill('ivy@example.com')
      await ivy.getByLabel('Password').fill(NEW_PASSWORD)
      await ivy.getByRole('button', { name: 'Sign in', exact: true }).click()
      await ivy.getByText('Ivy Invitee').waitFor()
      await ivy.goto(link)
      await ivy.getByLabel('New password', { exact: true }).fill(`${NEW_PASSWORD} again`)
      await ivy.getByRole('button', { name: 'Set password' }).click()
      await ivy.getByRole('alert').filter({ hasText: 'Password not set' }).waitFor()
      await ivy.context().close()
    },
    TIMEOUT,
  )

  /** Single sign-on through the provider's login and consent pages. */
  const ssoSignIn = async (p: Page, login: string) => {
    await p.goto(`${srv.url}/signin`)
    await p.getByRole('link', { name: 'Continue with Acme SSO' }).click()
    await p.waitForURL(`${provider.issuer}/**`)
    await p.locator('input[name="login"]').fill(login)
    await p.locator('input[name="password"]').fill('any')
    await p.getByRole('button', { name: 'Sign-in' }).click()
    await p.getByRole('button', { name: 'Continue' }).click()
    await p.waitForURL(`${srv.url}/**`)
  }

  test(
    'single sign-on through the provider’s pages creates the person with the mapped role; a viewer sees flags read-only, live',
    async () => {
      const p = await newPage()
      await ssoSignIn(p, 'vic')
      await p.getByRole('heading', { name: 'Flags' }).waitFor()
      await p.getByText('Vic Viewer').waitFor()
      expect(await p.getByRole('list', { name: 'Your roles' }).textContent()).toContain('project: viewer')
      // a viewer: no admin pages, no "New flag", a read-only flag page
      for (const name of ['Members', 'Tokens', 'Users'])
        expect(await p.getByRole('navigation', { name: 'Main' }).getByRole('link', { name }).count()).toBe(0)
      // the change stream works for a session: a flag made elsewhere appears in the loaded list without a reload
      await p.getByRole('link', { name: 'checkout' }).first().waitFor()
      await p.getByTestId('live-status').filter({ hasText: 'Live' }).waitFor()
      expect((await api(srv, 'POST', '/api/v1/flags', { token: srv.adminToken, body: { key: 'made-elsewhere', value: 1 } })).status).toBe(
        201,
      )
      await p.getByRole('link', { name: 'made-elsewhere' }).first().waitFor()
      expect(await p.getByRole('button', { name: 'New flag' }).count()).toBe(0)
      await p.getByRole('link', { name: 'checkout' }).first().click()
      await p.getByText(/Read-only: your role can read flags but not change them/).waitFor()
      expect(await p.getByRole('button', { name: 'Save changes' }).count()).toBe(0)
      expect(await p.getByRole('button', { name: 'Delete flag' }).count()).toBe(0)
      await p.context().close()
    },
    TIMEOUT,
  )

  test(
    'an editor limited in production edits only the other environments, each on its own',
    async () => {
      const p = await newPage()
      await ssoSignIn(p, 'eli')
      await p.getByRole('heading', { name: 'Flags' }).waitFor()
      // the list: a switch per environment it may change, none for production, for the flag itself or "New flag"
      await p.getByRole('switch', { name: 'staging: checkout' }).waitFor()
      expect(await p.getByRole('switch', { name: 'production: checkout' }).count()).toBe(0)
      expect(await p.getByRole('switch', { name: 'Enabled: checkout' }).count()).toBe(0)
      expect(await p.getByRole('button', { name: 'New flag' }).count()).toBe(0)
      await p.getByRole('link', { name: 'checkout' }).first().click()
      const access = p.getByRole('region', { name: 'Environments you may change' })
      await access.waitFor()
      await access.getByLabel('production (read-only)').waitFor()
      expect(await access.getByRole('button', { name: 'Save production' }).count()).toBe(0)
      expect(await p.getByRole('button', { name: 'Delete flag' }).count()).toBe(0)
      await access.getByRole('switch', { name: 'Enabled in staging' }).click()
      await access.getByRole('button', { name: 'Save staging' }).click()
      await access.getByRole('button', { name: 'Remove override in staging' }).waitFor()
      const flag = await api(srv, 'GET', '/api/v1/flags/checkout/definition', { token: srv.adminToken })
      expect(flag.body.flag.environments).toEqual({ staging: { enabled: false } })
      await p.context().close()
    },
    TIMEOUT,
  )

  test(
    'the audit log shows the person behind a change, and how they were signed in',
    async () => {
      await page.getByRole('combobox', { name: 'Project' }).selectOption('default')
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit log' }).click()
      const row = page.getByRole('row').filter({ hasText: 'eli@example.com' }).first()
      await row.waitFor()
      expect(await row.textContent()).toMatch(/person\s*eli@example\.com\s*\(console\)/)
    },
    TIMEOUT,
  )

  test(
    'the project switcher: another project is read with its own Flagship-Project header',
    async () => {
      // a second project, made by the operator CLI on the same database (the service picks it up on its
      // next reconcile); Bo's groups map to both projects once it is there
      const made = runCli(srv, 'projects', 'create', '--name', 'Mobile', '--slug', 'mobile')
      expect(made.code).toBe(0)
      for (const deadline = Date.now() + 20_000; ; ) {
        const r = await ssoHttp(srv.url, 'bo')
        if ((await sapi(srv, 'GET', '/api/v1/me', { cookie: r.session })).body.projects.length === 2) break
        if (Date.now() > deadline) throw new Error('the new project did not appear')
        await Bun.sleep(100)
      }
      const p = await newPage()
      await ssoSignIn(p, 'bo')
      await p.getByRole('heading', { name: 'Flags' }).waitFor()
      await p.getByRole('link', { name: 'checkout' }).first().waitFor()
      const switcher = p.getByRole('combobox', { name: 'Project' })
      expect(await switcher.locator('option').allTextContents()).toEqual(['Default', 'Mobile'])
      const headers: (string | undefined)[] = []
      p.on('request', (r) => {
        if (new URL(r.url()).pathname === '/api/v1/flags') headers.push(r.headers()['flagship-project'])
      })
      await switcher.selectOption('mobile')
      await p.getByText('No flags yet').waitFor()
      expect(await p.getByRole('list', { name: 'Your roles' }).textContent()).toContain('project: admin')
      // an admin of Mobile sees its admin pages
      await p.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Members' }).waitFor()
      // (a read of the old project's list may still have been under way when the switch began)
      expect(headers).toContain('mobile')
      expect(headers.at(-1)).toBe('mobile')
      await switcher.selectOption('default')
      await p.getByRole('link', { name: 'checkout' }).first().waitFor()
      await p.context().close()
    },
    TIMEOUT,
  )

  test(
    'an invitation accepted with single sign-on ("Join with …") signs the invited person in with its role',
    async () => {
      const invite = await sapi(srv, 'POST', '/api/v1/invitations', {
        cookie: await ownerCookie(),
        body: { email: 'jo@example.com', projects: [{ project: 'default', role: 'viewer' }] },
      })
      expect(invite.status).toBe(201)
      await provider.setAccounts({ jo: { email: 'jo@example.com', email_verified: true, name: 'Jo Joiner' } })
      const p = await newPage()
      await p.goto(invite.body.url)
      await p.getByRole('link', { name: 'Join with Acme SSO' }).click()
      await p.waitForURL(`${provider.issuer}/**`)
      await p.locator('input[name="login"]').fill('jo')
      await p.locator('input[name="password"]').fill('any')
      await p.getByRole('button', { name: 'Sign-in' }).click()
      await p.getByRole('button', { name: 'Continue' }).click()
      await p.waitForURL(`${srv.url}/**`)
      await p.getByText('Jo Joiner').waitFor()
      expect(await p.getByRole('list', { name: 'Your roles' }).textContent()).toContain('project: viewer')
      await p.context().close()
    },
    TIMEOUT,
  )

  test(
    'a failed single sign-on comes back to the sign-in page with the reason',
    async () => {
      const p = await newPage()
      await p.goto(`${srv.url}/api/v1/auth/oidc/callback?state=made-up&code=x`)
      await p.waitForURL('**/signin?sso_error=state')
      await p.getByRole('alert').filter({ hasText: 'Single sign-on failed.' }).waitFor()
      await p.context().close()
    },
    TIMEOUT,
  )

  test('no console errors or uncaught exceptions', () => {
    expect(problems).toEqual([])
  })
})
