// The switches told honestly, in Chromium: what each environment serves and why, the main switch named for
// what it does, Turn off everywhere (asked first, one audited change, Undo), the list's environment switches
// that ask before giving an environment its own switch or touching production (with Undo), the playground
// naming the environment override; and the smaller things around them: an empty segment, audit filters in
// the URL and token names, the history's diff, page titles, the flag editor first on a phone.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Browser, Page } from 'playwright-core'
import { browserSuite, launchChromium } from '../helpers/browser'
import { api, startServer, type TestServer } from '../helpers/server'

const T = 60_000

browserSuite('console: switches, and what they serve', () => {
  let srv: TestServer
  let browser: Browser
  const problems: string[] = []
  const call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    api(srv, method, path, { token: srv.adminToken, body, headers })
  const definition = async (key: string) => (await call('GET', `/api/v1/flags/${key}/definition`)).body.flag

  beforeAll(async () => {
    srv = await startServer()
    browser = await launchChromium()
    // The trap of the issue: the main switch is off, production has its own "on".
    expect(
      (
        await call('POST', '/api/v1/flags', {
          key: 'checkout',
          enabled: false,
          value: true,
          environments: { production: { enabled: true } },
        })
      ).status,
    ).toBe(201)
    expect((await call('POST', '/api/v1/flags', { key: 'banner', enabled: true, value: 'hello' })).status).toBe(201)
  }, T)
  afterAll(async () => {
    await browser?.close()
    await srv?.stop()
  })

  async function open(path: string, viewport = { width: 1366, height: 900 }): Promise<Page> {
    const page = await browser.newPage({ viewport })
    page.setDefaultTimeout(15_000)
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`))
    page.on('console', (m) => {
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(`console: ${m.text()}`)
    })
    await page.goto(`${srv.url}/`)
    await page.waitForURL('**/signin')
    await page.getByLabel('Access token').fill(srv.adminToken)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('button', { name: 'Sign out' }).waitFor()
    if (path !== '/') await page.goto(`${srv.url}${path}`)
    return page
  }
  const servingRow = (page: Page, env: string) => page.getByTestId(`serving-${env || 'none'}`)

  test(
    'the flag page shows, per environment, what it serves and why; the main switch says what it reaches',
    async () => {
      const page = await open('/flags/checkout')
      const card = page.getByRole('region', { name: 'Serving now' })
      await card.waitFor()
      expect(await servingRow(page, 'production').textContent()).toContain('its own switch is on (the main switch is off)')
      expect(await servingRow(page, 'production').textContent()).toContain('On')
      expect(await servingRow(page, 'staging').textContent()).toContain('follows the main switch (off)')
      expect(await servingRow(page, 'staging').textContent()).toContain('the off value, false')
      expect(await servingRow(page, '').textContent()).toContain('follows the main switch (off)')
      expect(await card.getByRole('status').textContent()).toContain(
        'The main switch is off, but production has its own switch, which is on',
      )
      await page.getByRole('switch', { name: 'Main switch' }).waitFor()
      expect(await page.locator('.flag-form').textContent()).toContain('production has its own and keeps it')
      await page.close()
    },
    T,
  )

  test(
    'the playground names the environment override that is off, and the main switch when that is what is off',
    async () => {
      await call('PUT', '/api/v1/flags/banner/environments/production', { enabled: false })
      const page = await open('/flags/banner')
      const playground = page.getByRole('region', { name: 'Evaluation playground' })
      await playground.getByLabel('Context environment').selectOption('production')
      await playground.getByRole('button', { name: 'Evaluate' }).click()
      await playground.getByTestId('eval-reason').filter({ hasText: 'disabled' }).waitFor()
      const why = playground.getByTestId('eval-reason-text')
      expect(await why.textContent()).toBe(
        'The production override is off: production has its own switch, which decides there (the main switch does not).',
      )
      expect(await why.textContent()).not.toContain('flag is off')
      // staging follows the main switch, which is on: the flag's value.
      await playground.getByLabel('Context environment').selectOption('staging')
      await playground.getByRole('button', { name: 'Evaluate' }).click()
      await playground.getByTestId('eval-reason').filter({ hasText: 'default' }).waitFor()
      await page.close()
      const other = await open('/flags/checkout')
      const pg = other.getByRole('region', { name: 'Evaluation playground' })
      await pg.getByLabel('Context environment').selectOption('staging')
      await pg.getByRole('button', { name: 'Evaluate' }).click()
      await pg.getByTestId('eval-reason').filter({ hasText: 'disabled' }).waitFor()
      expect(await pg.getByTestId('eval-reason-text').textContent()).toBe('The main switch is off and staging has no switch of its own.')
      await other.close()
    },
    T,
  )

  test(
    'Turn off everywhere: asked first, one audited change that serves off in every environment, and Undo',
    async () => {
      const page = await open('/flags/checkout')
      const before = await definition('checkout')
      await page.getByRole('button', { name: 'Turn off everywhere' }).click()
      const dialog = page.getByRole('dialog', { name: 'Turn “checkout” off everywhere?' })
      expect(await dialog.textContent()).toContain('the own switch of production')
      // Cancel changes nothing.
      await dialog.getByRole('button', { name: 'Cancel' }).click()
      expect((await definition('checkout')).version).toBe(before.version)
      await page.getByRole('button', { name: 'Turn off everywhere' }).click()
      await dialog.getByRole('button', { name: 'Turn off everywhere' }).click()
      await page.getByText(`Turned off everywhere (version ${before.version + 1})`).waitFor()
      const off = await definition('checkout')
      expect(off).toMatchObject({ version: before.version + 1, enabled: false, environments: { production: { enabled: false } } })
      for (const environment of ['production', 'staging', 'development']) {
        const r = await call('GET', `/api/v1/flags/checkout?context=${encodeURIComponent(JSON.stringify({ environment }))}`)
        expect([environment, r.body.value, r.body.reason]).toEqual([environment, false, 'disabled'])
      }
      await servingRow(page, 'production').filter({ hasText: 'its own switch is off' }).waitFor()
      expect(await page.getByRole('button', { name: 'Turn off everywhere' }).isDisabled()).toBe(true)
      const audit = (await call('GET', '/api/v1/audit?resource_type=flag&resource_key=checkout')).body
      expect(audit.entries.filter((e: any) => e.after?.version === before.version + 1).length).toBe(1)
      // Undo: the version before, as one more change.
      await page.getByRole('button', { name: 'Undo' }).click()
      await servingRow(page, 'production').filter({ hasText: 'its own switch is on' }).waitFor()
      expect(await definition('checkout')).toMatchObject({
        version: before.version + 2,
        enabled: false,
        environments: { production: { enabled: true } },
      })
      expect((await call('GET', '/api/v1/flags/checkout/history')).body.versions[0].action).toBe('rollback')
      await page.close()
    },
    T,
  )

  test(
    'the list asks before switching production or giving an environment its own switch, and can undo',
    async () => {
      const page = await open('/')
      const prod = page.getByRole('switch', { name: 'production: checkout' })
      await prod.waitFor()
      expect(await page.getByRole('row').filter({ hasText: 'checkout' }).locator('.follows').count()).toBeGreaterThan(0)
      // production: asked first; Cancel changes nothing.
      const before = await definition('checkout')
      await prod.click()
      const ask = page.getByRole('dialog', { name: 'Switch checkout off in production?' })
      expect(await ask.textContent()).toContain('production serves your users')
      await ask.getByRole('button', { name: 'Cancel' }).click()
      expect((await definition('checkout')).version).toBe(before.version)
      await prod.click()
      await ask.getByRole('button', { name: 'Switch off in production' }).click()
      await page.getByRole('status').filter({ hasText: 'Switched checkout off in production.' }).waitFor()
      expect(await definition('checkout')).toMatchObject({ version: before.version + 1, environments: { production: { enabled: false } } })
      await page
        .getByRole('status')
        .filter({ hasText: 'Switched checkout off in production.' })
        .getByRole('button', { name: 'Undo' })
        .click()
      await page.locator('[role=switch][aria-label="production: checkout"][aria-checked=true]').waitFor()
      expect(await definition('checkout')).toMatchObject({ version: before.version + 2, environments: { production: { enabled: true } } })
      // staging follows the (off) main switch: switching it on gives it its own switch, said first.
      await page.getByRole('switch', { name: 'staging: checkout' }).click()
      const own = page.getByRole('dialog', { name: 'Switch checkout on in staging?' })
      expect(await own.textContent()).toContain(
        'staging follows the main switch (off) now. Switching gives staging a switch of its own, on',
      )
      await own.getByRole('button', { name: 'Cancel' }).click()
      expect((await definition('checkout')).environments.staging).toBeUndefined()
      // An environment with its own switch that is not production switches at once.
      await call('PUT', '/api/v1/flags/banner/environments/staging', { enabled: true })
      // (staging showed "on" before too, following banner's main switch: wait for the row to have its own)
      await page
        .getByRole('row')
        .filter({ has: page.getByRole('link', { name: 'banner', exact: true }) })
        .locator('li[title="staging: its own switch"]')
        .waitFor()
      await page.getByRole('switch', { name: 'staging: banner' }).click()
      await page.locator('[role=switch][aria-label="staging: banner"][aria-checked=false]').waitFor()
      expect(await page.getByRole('dialog').count()).toBe(0)
      await page.close()
    },
    T,
  )

  test(
    'an empty segment: the console says it matches everyone and asks before saving one',
    async () => {
      expect(
        (await call('POST', '/api/v1/segments', { key: 'beta', conditions: [{ property: 'plan', operator: 'equals', value: 'beta' }] }))
          .status,
      ).toBe(201)
      const page = await open('/segments/beta')
      await page.getByRole('heading', { name: 'beta', exact: true }).waitFor()
      await page.getByRole('button', { name: 'Remove Segment condition 1' }).click()
      await page.getByText('No conditions: this segment matches everyone.').waitFor()
      expect(await page.getByRole('button', { name: 'Save changes' }).isDisabled()).toBe(true)
      await page.getByLabel('Save it without conditions (it matches everyone)').check()
      await page.getByRole('button', { name: 'Save changes' }).click()
      await page.getByText('All changes saved').waitFor()
      expect(
        (await call('GET', '/api/v1/segments/beta')).body.segment?.conditions ??
          (await call('GET', '/api/v1/segments/beta')).body.conditions,
      ).toEqual([])
      await page.close()
    },
    T,
  )

  test(
    'audit: filters live in the URL (reload and back keep them); actors show the token name and prefix',
    async () => {
      const made = await call('POST', '/api/v1/tokens', {
        name: 'deploy-bot',
        project_id: 'default',
        permissions: ['write:flags', 'read:flags'],
      })
      const bot = made.body.token as string
      expect((await api(srv, 'PUT', '/api/v1/flags/banner', { token: bot, body: { value: 'bye' } })).status).toBe(200)
      const page = await open('/audit')
      await page.getByRole('heading', { name: 'Audit log' }).waitFor()
      const filters = page.getByRole('form', { name: 'Audit filters' })
      await filters.getByLabel('Resource key').fill('banner')
      await filters.getByLabel('Action').selectOption('update')
      await filters.getByRole('button', { name: 'Apply filters' }).click()
      await page.waitForURL(/\/audit\?resource_key=banner&action=update$/)
      const actor = page.locator('td[data-label="Actor"]').first()
      await actor.filter({ hasText: `deploy-bot (${bot.slice(0, 12)})` }).waitFor()
      await page.reload()
      await page.locator('td[data-label="Actor"]').first().filter({ hasText: 'deploy-bot' }).waitFor()
      expect(await page.getByRole('form', { name: 'Audit filters' }).getByLabel('Resource key').inputValue()).toBe('banner')
      expect([...new Set(await page.locator('td[data-label="Action"]').allTextContents())]).toEqual(['update'])
      await page.getByRole('form', { name: 'Audit filters' }).getByRole('button', { name: 'Reset' }).click()
      await page.waitForURL(/\/audit$/)
      await page.goBack()
      await page.waitForURL(/resource_key=banner/)
      await page.locator('td[data-label="Action"]').first().waitFor()
      expect([...new Set(await page.locator('td[data-label="Action"]').allTextContents())]).toEqual(['update'])
      expect(await page.title()).toBe('Audit log · Flagship')
      await page.close()
    },
    T,
  )

  test(
    'history: the chosen version’s diff opens in view, read as a rollback would go, with who wrote it',
    async () => {
      const page = await open('/flags/banner', { width: 390, height: 844 })
      const history = page.getByRole('region', { name: 'History' })
      await history.getByRole('button', { name: 'Version 1' }).click()
      const diff = page.getByTestId('history-diff')
      await diff.getByText('Rolling back to v1 would change: current (v').waitFor()
      const headers = await diff.locator('thead th').allTextContents()
      expect(headers.slice(1)).toEqual([expect.stringMatching(/^Now \(v\d+\)$/), 'v1'])
      // value: "bye" now, "hello" in v1: the row reads from now to v1.
      expect(await diff.locator('tr.diff-changed', { hasText: 'value' }).first().textContent()).toMatch(/"bye".*"hello"/)
      await page.waitForFunction(() => {
        const r = document.querySelector('[data-testid=history-diff]')!.getBoundingClientRect()
        return r.top < window.innerHeight && r.bottom > 0
      })
      expect(await history.textContent()).toContain('deploy-bot (')
      await page.close()
    },
    T,
  )

  test(
    'every page has its own title; on a phone the flag editor comes first, with nothing sticky over it',
    async () => {
      const page = await open('/flags/banner', { width: 390, height: 844 })
      const mainSwitch = page.getByRole('switch', { name: 'Main switch' })
      await mainSwitch.waitFor()
      expect(await page.title()).toBe('banner · Flag · Flagship')
      const box = (await mainSwitch.boundingBox())!
      expect(box.y + box.height).toBeLessThan(844)
      const order = await page.evaluate(() =>
        ['.detail-grid', '.serving-card', '.insight-grid'].map((s) => document.querySelector(s)!.getBoundingClientRect().top),
      )
      expect(order[0]).toBeLessThan(order[1]!)
      expect(order[1]).toBeLessThan(order[2]!)
      expect(await page.evaluate(() => getComputedStyle(document.querySelector('.sidebar')!).position)).toBe('static')
      for (const [path, title] of [
        ['/', 'Flags · Flagship'],
        ['/segments', 'Segments · Flagship'],
        ['/webhooks', 'Webhooks · Flagship'],
        ['/configs', 'Configs · Flagship'],
      ] as const) {
        await page.goto(`${srv.url}${path}`)
        await page.waitForFunction((t) => document.title === t, title)
      }
      await page.close()
    },
    T,
  )

  test(
    'webhooks: a refused URL gives its reason once; the same URL twice is refused, naming the one registered',
    async () => {
      const page = await open('/webhooks')
      const form = page.locator('form').filter({ has: page.getByRole('button', { name: 'Register webhook' }) })
      await form.getByLabel('URL').fill('ftp://example.com/x')
      await form.getByRole('button', { name: 'Register webhook' }).click()
      const alert = page.getByRole('alert').filter({ hasText: 'Could not register the webhook' })
      await alert.waitFor()
      const refused = await call('POST', '/api/v1/webhooks', { url: 'ftp://example.com/x', events: ['*'] })
      const reason = refused.body.details.reason as string
      expect((await alert.textContent())!.split(reason).length).toBe(2)
      await form.getByLabel('URL').fill('https://twice.example.com/hook')
      await form.getByRole('button', { name: 'Register webhook' }).click()
      await page
        .getByRole('cell', { name: 'https://twice.example.com/hook' })
        .or(page.getByText('https://twice.example.com/hook').first())
        .first()
        .waitFor()
      await form.getByLabel('URL').fill('https://twice.example.com/hook')
      await form.getByRole('button', { name: 'Register webhook' }).click()
      await alert.filter({ hasText: 'https://twice.example.com/hook is registered already' }).waitFor()
      expect(
        (await call('GET', '/api/v1/webhooks')).body.webhooks.filter((w: any) => w.config.url === 'https://twice.example.com/hook').length,
      ).toBe(1)
      await page.close()
    },
    T,
  )

  test('no uncaught exceptions or console errors', () => {
    expect(problems).toEqual([])
  })
})
