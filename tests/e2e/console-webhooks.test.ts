// The console's webhooks page in Chromium: a webhook paused after failing is shown as paused, and Resume
// makes it active again and sends what was queued.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Browser } from 'playwright-core'
import { browserSuite, launchChromium } from '../helpers/browser'
import { api, startServer, type TestServer } from '../helpers/server'

browserSuite('console: webhook health', () => {
  let srv: TestServer
  let browser: Browser
  let up = false
  const received: string[] = []
  const rx = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const body = (await req.json()) as { resource: string }
      if (!up) return new Response('down', { status: 500 })
      received.push(body.resource)
      return new Response('ok')
    },
  })

  beforeAll(async () => {
    srv = await startServer({ env: { WEBHOOK_PAUSE_AFTER_MS: '1000', WEBHOOK_BACKOFF_MAX_MS: '1000' } })
    browser = await launchChromium()
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await srv?.stop()
    rx.stop(true)
  })

  test('a paused webhook shows as paused; Resume delivers its queue and clears it', async () => {
    const hook = await api(srv, 'POST', '/api/v1/webhooks', {
      token: srv.adminToken,
      body: { url: `http://127.0.0.1:${rx.port}/hook`, events: ['flag.created'] },
    })
    await api(srv, 'POST', '/api/v1/flags', { token: srv.adminToken, body: { key: 'queued-flag' } })
    for (let i = 0; i < 200; i++) {
      const list = await api(srv, 'GET', '/api/v1/webhooks', { token: srv.adminToken })
      if (list.body.webhooks[0].health.status === 'paused') break
      await Bun.sleep(50)
    }
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    page.setDefaultTimeout(15_000)
    await page.goto(`${srv.url}/`)
    await page.waitForURL('**/signin')
    await page.getByLabel('Access token').fill(srv.adminToken)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('button', { name: 'Sign out' }).waitFor()
    await page.goto(`${srv.url}/webhooks`)
    const health = page.getByRole('status', { name: 'Delivery health' })
    await health.waitFor()
    expect(await health.textContent()).toContain('paused')
    await page.screenshot({ path: `${import.meta.dir}/screenshots/webhook-paused.png` }).catch(() => undefined)
    up = true
    await page.getByRole('button', { name: 'Resume' }).click()
    await health.waitFor({ state: 'detached' })
    for (let i = 0; i < 100 && !received.includes('queued-flag'); i++) await Bun.sleep(50)
    expect(received).toContain('queued-flag')
    const after = await api(srv, 'GET', '/api/v1/webhooks', { token: srv.adminToken })
    expect(after.body.webhooks[0]).toMatchObject({ id: hook.body.id, health: { status: 'active' } })
    await page.close()
  }, 60_000)
})
