// End-to-end: the admin console's other pages in a real Chromium against the real server (fresh SQLite per
// run): tokens, the audit log, configs, segments, webhooks, settings, a read-only token, narrow screens,
// confirmations and sign-out. The flag `checkout-v2` and its history are made through the API first, as the
// flag editing suite (console.test.ts) leaves them.
import { beforeAll, expect, test } from 'bun:test'
import type { BrowserContext, Page } from 'playwright-core'
import { browserSuite } from '../helpers/browser'
import { api, createToken, type TestServer } from '../helpers/server'
import { consoleSession, TIMEOUT } from './fixtures/console-session'

browserSuite('admin console', () => {
  const { session, problems, newPage, signIn, go, recordApi, shot } = consoleSession()
  let srv: TestServer
  let page: Page
  let context: BrowserContext
  beforeAll(async () => {
    ;({ srv, page, context } = session)
    const call = async (method: string, path: string, body: unknown) => {
      const res = await api(srv, method, path, { token: srv.adminToken, body })
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`)
    }
    await call('POST', '/api/v1/flags', { key: 'checkout-v2', value: 'blue' })
    await call('PUT', '/api/v1/flags/checkout-v2', {
      targeting: { rules: [{ conditions: [{ property: 'plan', operator: 'in', value: ['pro', 'enterprise'] }], value: 'gold' }] },
    })
    await call('PUT', '/api/v1/flags/checkout-v2', { enabled: true })
    await call('PUT', '/api/v1/flags/checkout-v2/environments/staging', { enabled: false })
    await signIn(page, srv.adminToken)
  }, TIMEOUT)

  test(
    'a new token is shown once and is gone after navigating away',
    async () => {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Tokens' }).click()
      await page.getByRole('heading', { name: 'Access tokens' }).waitFor()
      await page.getByLabel('Name', { exact: true }).fill('ci reader')
      await page.getByRole('checkbox', { name: /read:configs/ }).check()
      await page.getByRole('button', { name: 'Create token' }).click()
      const plaintext = await page.getByRole('textbox', { name: 'New token' }).inputValue()
      expect(plaintext).toMatch(/^ff_defa_[A-Za-z0-9]{20}$/)
      await page.getByRole('button', { name: 'Copy token' }).waitFor()
      await page.getByRole('cell', { name: /^ci reader/ }).waitFor()
      await shot(page, 'tokens-1280')

      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Flags' }).click()
      await page.getByRole('heading', { name: 'Flags' }).waitFor()
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Tokens' }).click()
      await page.getByRole('cell', { name: /^ci reader/ }).waitFor()
      expect(await page.getByRole('textbox', { name: 'New token' }).count()).toBe(0)
      expect(await page.content()).not.toContain(plaintext)
    },
    TIMEOUT,
  )

  test(
    'the audit log filters and shows a before/after diff',
    async () => {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit log' }).click()
      await page.getByRole('heading', { name: 'Audit log' }).waitFor()
      await page
        .getByRole('button', { name: /View changes/ })
        .first()
        .waitFor()
      await page.getByLabel('Resource type').selectOption('flag')
      await page.getByLabel('Action').selectOption('update')
      await page.getByRole('button', { name: 'Apply filters' }).click()
      await page.locator('tbody tr').filter({ hasText: 'token' }).waitFor({ state: 'detached' })
      const rows = page.getByRole('button', { name: /View changes: update flag checkout-v2/ })
      await rows.first().waitFor()
      expect(await page.getByRole('button', { name: /View changes: create/ }).count()).toBe(0)
      await shot(page, 'audit-1280')
      // the oldest update: the rule was added
      await rows.last().click()
      const dialog = page.getByRole('dialog', { name: 'update flag “checkout-v2”' })
      await dialog.waitFor()
      const text = await dialog.locator('table').textContent()
      expect(text).toContain('targeting.rules[0].value')
      expect(text).toContain('"gold"')
      await shot(page, 'audit-diff-1280')
      await dialog.getByRole('button', { name: 'Close dialog' }).click()
      await dialog.waitFor({ state: 'hidden' })
    },
    TIMEOUT,
  )

  test(
    'the other admin pages render',
    async () => {
      const configRes = await api(srv, 'POST', '/api/v1/configs', {
        token: srv.adminToken,
        body: {
          key: 'checkout.limits',
          value: { max_items: 20, currency: 'EUR' },
          environments: { production: { value: { max_items: 50, currency: 'EUR' } } },
        },
      })
      expect(configRes.status).toBe(201)
      const segRes = await api(srv, 'POST', '/api/v1/segments', {
        token: srv.adminToken,
        body: { key: 'beta-testers', conditions: [{ property: 'custom.beta', operator: 'equals', value: true }] },
      })
      expect(segRes.status).toBe(201)
      const hook = await api(srv, 'POST', '/api/v1/webhooks', {
        token: srv.adminToken,
        body: { url: 'https://hooks.example.com/flags', events: ['flag.updated', 'flag.created'], secret: 's3cret' },
      })
      expect(hook.status).toBe(201)

      const nav = page.getByRole('navigation', { name: 'Main' })
      await nav.getByRole('link', { name: 'Configs' }).click()
      await page.getByRole('link', { name: 'checkout.limits' }).click()
      await page.getByRole('textbox', { name: 'Value in production' }).waitFor()
      await shot(page, 'config-1280')
      await nav.getByRole('link', { name: 'Configs' }).click()
      await page.getByRole('link', { name: 'checkout.limits' }).waitFor()
      await shot(page, 'configs-1280')

      await nav.getByRole('link', { name: 'Segments' }).click()
      await page.getByRole('link', { name: 'beta-testers' }).click()
      await page.getByLabel('Segment condition 1 property').waitFor()
      await shot(page, 'segment-1280')
      await nav.getByRole('link', { name: 'Segments' }).click()
      await page.getByRole('link', { name: 'beta-testers' }).waitFor()
      await shot(page, 'segments-1280')

      await nav.getByRole('link', { name: 'Webhooks' }).click()
      await page.getByText('https://hooks.example.com/flags').waitFor()
      await page.getByRole('button', { name: /Recent deliveries/ }).click()
      await page
        .getByText(/No deliveries yet|Delivery history is not available|flag\./)
        .first()
        .waitFor()
      await shot(page, 'webhooks-1280')

      await nav.getByRole('link', { name: 'Settings' }).click()
      await page.getByRole('heading', { name: 'Project settings' }).waitFor()
      await shot(page, 'settings-1280')
    },
    TIMEOUT,
  )

  test(
    'a rule can use a segment, and removing an environment in use offers force',
    async () => {
      const reads = recordApi(page)
      await go(page, '/flags/checkout-v2')
      await page.getByRole('button', { name: '+ Add rule' }).click()
      await page.getByLabel('Rule 2 condition 1 operator').selectOption('in_segment')
      await page.getByLabel('Rule 2 condition 1 value').selectOption('beta-testers')
      await page.getByLabel('Move rule 2 up').click()
      await page.getByRole('button', { name: 'Save changes' }).click()
      await page.getByText('All changes saved').waitFor()
      reads.stop()
      // the flag page reads the one flag, never the flag list
      expect(reads.seen).toContain('/api/v1/flags/checkout-v2/definition')
      expect(reads.seen.filter((u) => u.startsWith('/api/v1/flags?'))).toEqual([])
      const flags = await api(srv, 'GET', '/api/v1/flags', { token: srv.adminToken })
      // a segment condition tests no property
      expect(flags.body.flags[0].flag.targeting.rules[0].conditions[0]).toEqual({ operator: 'in_segment', value: 'beta-testers' })

      await go(page, '/settings')
      await page.getByRole('button', { name: 'Remove environment staging' }).click()
      const dialog = page.getByRole('dialog', { name: 'Remove environment “staging”?' })
      await dialog.getByRole('button', { name: 'Remove environment' }).click()
      await dialog.getByText('is still in use').waitFor()
      await dialog.getByRole('button', { name: 'Force: remove overrides too' }).click()
      await dialog.waitFor({ state: 'hidden' })
      await page.getByRole('button', { name: 'Remove environment staging' }).waitFor({ state: 'detached' })
      const project = await api(srv, 'GET', '/api/v1/project', { token: srv.adminToken })
      expect(project.body.environments).toEqual(['development', 'production'])
    },
    TIMEOUT,
  )

  test(
    'configs and segments are edited through their forms',
    async () => {
      const reads = recordApi(page)
      await go(page, '/configs/checkout.limits')
      await page.getByRole('textbox', { name: 'Value in production' }).fill('{"max_items": 99}')
      await page.getByLabel('Override in development').check()
      await page.getByRole('textbox', { name: 'Value in development' }).fill('{"max_items": 5')
      await page.getByText('Fix before saving').waitFor()
      await page.getByRole('textbox', { name: 'Value in development' }).fill('{"max_items": 5}')
      await page.getByRole('button', { name: 'Save changes' }).click()
      await page.getByText('All changes saved').waitFor()
      const configs = await api(srv, 'GET', '/api/v1/configs', { token: srv.adminToken })
      expect(configs.body.configs[0].config.environments).toEqual({
        production: { value: { max_items: 99 } },
        development: { value: { max_items: 5 } },
      })

      await go(page, '/segments/beta-testers')
      await page.getByRole('button', { name: '+ Add condition to segment' }).click()
      await page.getByLabel('Segment condition 2 property').fill('custom.country')
      await page.getByLabel('Segment condition 2 operator').selectOption('not_in')
      await page.getByLabel('Segment condition 2 value').fill('NL, BE')
      await page.getByRole('button', { name: 'Save changes' }).click()
      await page.getByText('All changes saved').waitFor()
      const segment = await api(srv, 'GET', '/api/v1/segments/beta-testers', { token: srv.adminToken })
      expect(segment.body.segment.conditions[1]).toEqual({ property: 'custom.country', operator: 'not_in', value: ['NL', 'BE'] })
      expect(segment.body.segment.version).toBe(2)
      reads.stop()
      // detail pages read their one resource (the segment page also reads all flags, for "Used by")
      expect(reads.seen).toContain('/api/v1/configs/checkout.limits/definition')
      expect(reads.seen).toContain('/api/v1/segments/beta-testers')
      expect(reads.seen.filter((u) => u.startsWith('/api/v1/configs?') || u.startsWith('/api/v1/segments?'))).toEqual([])
    },
    TIMEOUT,
  )

  test(
    'a webhook registered in the form shows its deliveries; a failed one can be redelivered',
    async () => {
      let answer = 500
      const hits: string[] = []
      const receiver = Bun.serve({
        hostname: '127.0.0.1',
        port: 0,
        fetch(req) {
          hits.push(req.headers.get('x-webhook-event') ?? '')
          return new Response('', { status: answer })
        },
      })
      try {
        const url = `http://127.0.0.1:${receiver.port}/hook`
        await go(page, '/webhooks')
        await page.getByLabel('URL').fill(url)
        await page.getByLabel('All events').check()
        await page.getByRole('button', { name: 'Register webhook' }).click()
        const card = page.locator('li.card', { hasText: url })
        await card.waitFor()
        expect(await card.getByRole('list', { name: 'Events' }).textContent()).toBe('all events')

        const put = await api(srv, 'PUT', '/api/v1/flags/checkout-v2', { token: srv.adminToken, body: { value: 'teal' } })
        expect(put.status).toBe(200)
        await card.getByRole('button', { name: 'Recent deliveries' }).click()
        // three attempts (now, +1 s, +4 s), then the delivery is marked failed
        await card.locator('.badge', { hasText: 'failed' }).waitFor({ timeout: 30_000 })
        expect(hits.length).toBe(3)
        await shot(page, 'webhooks-deliveries-1280')
        answer = 200
        await card.getByRole('button', { name: /Redeliver flag.updated delivery/ }).click()
        await card.locator('.badge', { hasText: 'delivered' }).waitFor({ timeout: 30_000 })
        expect(hits.at(-1)).toBe('flag.updated')
      } finally {
        receiver.stop(true)
      }
    },
    TIMEOUT,
  )

  test(
    'a read:flags token sees read-only views and no admin navigation',
    async () => {
      const reader = await createToken(srv, ['read:flags'])
      const { ctx, page: p } = await newPage()
      try {
        await signIn(p, reader)
        await p.getByRole('link', { name: 'checkout-v2' }).waitFor()
        const nav = p.getByRole('navigation', { name: 'Main' })
        // Upcoming lists scheduled changes (read:flags); without write:flags it offers no Cancel. Changes (change
        // requests), experiments and metrics are readable with read:flags too.
        expect(await nav.getByRole('link').allTextContents()).toEqual([
          'Flags',
          'Upcoming',
          'Changes',
          'Experiments',
          'Metrics',
          'Import / export',
          'Compare environments',
        ])
        expect(await p.getByRole('switch').count()).toBe(0)
        expect(await p.getByRole('button', { name: 'New flag' }).count()).toBe(0)
        await shot(p, 'flags-readonly-1280')

        await p.getByRole('link', { name: 'checkout-v2' }).click()
        await p.getByText('Read-only: this token can read flags but not change them.').waitFor()
        for (const name of ['Delete flag', 'Save changes', '+ Add rule']) expect(await p.getByRole('button', { name }).count()).toBe(0)
        expect(await p.getByRole('switch').count()).toBe(0)
        // evaluating is reading: the playground works
        await p.getByLabel('Context plan').fill('pro')
        await p.getByRole('button', { name: 'Evaluate' }).click()
        await p.getByTestId('eval-reason').waitFor()
        await go(p, '/tokens')
        await p.getByText('This token cannot open this page').waitFor()
      } finally {
        await ctx.close()
      }
    },
    TIMEOUT,
  )

  test(
    'narrow (400px) screens',
    async () => {
      const { ctx, page: p } = await newPage(400, 860)
      try {
        await p.goto(`${srv.url}/signin`)
        await p.getByLabel('Access token').waitFor()
        await shot(p, 'signin-400')
        await signIn(p, srv.adminToken)
        await p.getByRole('link', { name: 'checkout-v2' }).waitFor()
        await shot(p, 'flags-400')
        for (const [path, name] of [
          ['/flags/checkout-v2', 'flag-400'],
          ['/configs/checkout.limits', 'config-400'],
          ['/segments/beta-testers', 'segment-400'],
          ['/tokens', 'tokens-400'],
          ['/webhooks', 'webhooks-400'],
          ['/audit', 'audit-400'],
          ['/settings', 'settings-400'],
        ]) {
          await go(p, path)
          await p.locator('.page-header h1').waitFor()
          // Every loading state gone (a flag's page may show several at once: usage, schedules, history).
          await p.waitForFunction(() => document.querySelector('.state[role=status]') === null)
          // nothing may force horizontal scrolling
          const overflow = await p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
          expect({ path, overflow }).toEqual({ path, overflow: 0 })
          await shot(p, name)
        }
        await go(p, '/audit')
        await p
          .getByRole('button', { name: /View changes: update flag/ })
          .first()
          .click()
        await p.getByRole('dialog').waitFor()
        await shot(p, 'audit-diff-400')
      } finally {
        await ctx.close()
      }
    },
    TIMEOUT,
  )

  test(
    'deleting a flag and revoking a token ask for confirmation',
    async () => {
      await go(page, '/flags/checkout-v2')
      await page.getByRole('button', { name: 'Delete flag' }).click()
      const dialog = page.getByRole('dialog', { name: 'Delete flag “checkout-v2”?' })
      await dialog.getByRole('button', { name: 'Cancel' }).click()
      await dialog.waitFor({ state: 'hidden' })
      await page.getByRole('button', { name: 'Delete flag' }).click()
      await dialog.getByRole('button', { name: 'Delete flag' }).click()
      await page.waitForURL(`${srv.url}/`)
      await page.getByText('No flags yet').waitFor()

      await go(page, '/tokens')
      await page.getByRole('button', { name: /Revoke token ci reader/ }).click()
      const confirm = page.getByRole('dialog', { name: 'Revoke token “ci reader”?' })
      await confirm.getByRole('button', { name: 'Revoke token' }).click()
      await confirm.waitFor({ state: 'hidden' })
      await page.getByRole('cell', { name: /^ci reader/ }).waitFor({ state: 'detached' })
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
