// The console's Import / export and Compare environments pages in Chromium: export, paste a document, see
// the plan as a diff, Apply it; compare two environments and promote one row, then a selection.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Browser, Page } from 'playwright-core'
import { browserSuite, launchChromium } from '../helpers/browser'
import { api, startServer, type TestServer } from '../helpers/server'

browserSuite('console: flags as code', () => {
  let srv: TestServer
  let browser: Browser
  let page: Page

  beforeAll(async () => {
    srv = await startServer()
    browser = await launchChromium()
    const w = (path: string, body: unknown) => api(srv, 'POST', path, { token: srv.adminToken, body })
    await w('/api/v1/flags', { key: 'checkout', enabled: true, value: 1, environments: { staging: { enabled: true, value: 2 } } })
    await w('/api/v1/flags', { key: 'banner', enabled: true, environments: { staging: { enabled: false } } })
    await w('/api/v1/configs', { key: 'limits', value: 1, environments: { staging: { value: 5 } } })
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    page.setDefaultTimeout(15_000)
    await page.goto(`${srv.url}/`)
    await page.waitForURL('**/signin')
    await page.getByLabel('Access token').fill(srv.adminToken)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('button', { name: 'Sign out' }).waitFor()
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await srv?.stop()
  })

  test('export shows the document; a pasted document is planned as a diff, then applied exactly', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Import / export' }).click()
    await page.getByRole('heading', { name: 'Import / export' }).waitFor()
    await page.getByRole('button', { name: 'Export', exact: true }).click()
    const exported = page.getByLabel('Exported document')
    await exported.waitFor()
    expect(await exported.textContent()).toBe((await api(srv, 'GET', '/api/v1/export', { token: srv.adminToken })).text)

    await page
      .getByRole('textbox', { name: 'Document', exact: true })
      .fill(
        'flagship: 1\nflags:\n  - key: checkout\n    enabled: false\n    value: 1\n' +
          '    environments:\n      staging: { enabled: true, value: 2 }\n' +
          '  - key: from-console\n    enabled: true\n',
      )
    await page.getByRole('button', { name: 'Plan' }).click()
    const plan = page.getByRole('region', { name: 'Plan' })
    await plan.waitFor()
    expect(await page.getByTestId('plan-summary').textContent()).toBe('1 to create, 1 to update, 0 to delete, 0 unchanged')
    const changes = await page.getByTestId('plan-change').allTextContents()
    expect(changes[0]).toContain('update flag checkout')
    expect(changes[0]).toContain('/enabled')
    expect(changes[1]).toContain('create flag from-console')
    await page.screenshot({ path: `${import.meta.dir}/screenshots/import-plan.png` }).catch(() => undefined)
    // Nothing is written by planning.
    expect((await api(srv, 'GET', '/api/v1/flags/from-console', { token: srv.adminToken })).status).toBe(404)
    await page.getByRole('button', { name: 'Apply' }).click()
    expect(await page.getByTestId('applied').textContent()).toContain('Applied: 1 created, 1 updated, 0 deleted')
    expect((await api(srv, 'GET', '/api/v1/flags/from-console', { token: srv.adminToken })).status).toBe(200)

    // An uploaded file replaces the text and is planned the same way.
    await page.getByLabel('Upload a file').setInputFiles({
      name: 'flags.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify({ flagship: 1, configs: [{ key: 'uploaded', value: 1 }] })),
    })
    await page.getByRole('button', { name: 'Plan' }).click()
    await page.getByText('1 to create, 0 to update, 0 to delete, 0 unchanged').waitFor()
    expect(await page.getByTestId('plan-change').allTextContents()).toEqual([expect.stringContaining('create config uploaded')])

    // A bad document shows its errors and cannot be applied.
    await page
      .getByRole('textbox', { name: 'Document', exact: true })
      .fill('flagship: 1\nflags:\n  - key: x\n    prerequisites: [{ key: ghost, value: true }]\n')
    await page.getByRole('button', { name: 'Plan' }).click()
    await page.getByRole('list', { name: 'Errors' }).waitFor()
    expect(await page.getByRole('list', { name: 'Errors' }).textContent()).toContain('unknown flag "ghost"')
    expect(await page.getByRole('button', { name: 'Apply' }).isDisabled()).toBe(true)
  })

  test('compare environments: statuses, promote one row, then a selection', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Compare environments' }).click()
    await page.getByRole('heading', { name: 'Compare environments' }).waitFor()
    await page.getByLabel('From environment').selectOption('staging')
    await page.getByLabel('To environment').selectOption('production')
    const row = (id: string) => page.getByTestId(`compare-${id}`)
    await row('flag:checkout').waitFor()
    expect(await row('flag:checkout').textContent()).toContain('only in staging')
    await page.getByRole('button', { name: 'Promote flag checkout' }).click()
    await page.getByRole('button', { name: 'Promote flag checkout' }).waitFor({ state: 'detached' })
    expect(await row('flag:checkout').textContent()).toContain('identical')
    const flag = (
      await api(srv, 'GET', `/api/v1/flags/checkout?context=${encodeURIComponent(JSON.stringify({ environment: 'production' }))}`, {
        token: srv.adminToken,
      })
    ).body
    expect(flag.value).toBe(2)

    await page.getByLabel('Select flag banner').check()
    await page.getByLabel('Select config limits').check()
    await page.getByRole('button', { name: 'Promote selected (2)' }).click()
    await page.getByRole('button', { name: 'Promote selected (0)' }).waitFor()
    await page.getByRole('button', { name: 'Promote config limits' }).waitFor({ state: 'detached' })
    const c = (await api(srv, 'GET', '/api/v1/environments/compare?a=staging&b=production', { token: srv.adminToken })).body
    expect(c.flags.filter((f: any) => f.status !== 'identical').map((f: any) => f.key)).toEqual([])
    expect(c.configs).toEqual([{ key: 'limits', status: 'identical' }])
  })
})
