// The built flagship-sdk's remote mode in Chromium, on a page served from another origin (so CORS is
// real), holding a client key: it shows the service's values for its one context (client_side flags only,
// in the key's environment), follows a change within a second over OFREP's stream, and never asks for the
// definitions.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { join, normalize } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { buildSdk, DIST } from '../../sdk/build'
import { api, createToken, startServer, type TestServer } from '../helpers/server'
import { browserSuite, launchChromium } from '../helpers/browser'

declare global {
  interface Window {
    remote: {
      client: { evaluate(key: string, fallback?: unknown): { value: unknown }; all(): Record<string, unknown> }
      ready: boolean
      error: string | null
    }
  }
}

const PAGE = `<!doctype html><title>remote</title><script type="module">
import { createClient } from '/sdk/index.js'
const q = new URLSearchParams(location.search)
const client = createClient({ url: q.get('flagship'), token: q.get('token'), context: { user_id: 'u-42', plan: 'pro' }, mode: 'remote' })
window.remote = { client, ready: false, error: null }
client.ready().then(() => (window.remote.ready = true), (e) => (window.remote.error = String(e)))
</script>`

browserSuite('flagship-sdk remote mode in Chromium', () => {
  let srv: TestServer
  let site: ReturnType<typeof Bun.serve>
  let browser: Browser
  let page: Page
  const requests: string[] = []
  const responses: string[] = []
  const pageErrors: string[] = []

  beforeAll(async () => {
    srv = await startServer()
    const post = async (path: string, body: unknown) =>
      expect((await api(srv, 'POST', path, { token: srv.adminToken, body })).status).toBe(201)
    await post('/api/v1/flags', {
      key: 'banner',
      enabled: true,
      value: 'a',
      client_side: true,
      targeting: { rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'pro' }], value: 'pro' }] },
      environments: { staging: { enabled: false } },
    })
    await post('/api/v1/flags', { key: 'internal', enabled: true, value: 'secret' })
    const token = await createToken(srv, ['client'], { environment: 'production' })
    await buildSdk()
    site = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch(req) {
        const path = new URL(req.url).pathname
        if (!path.startsWith('/sdk/')) return new Response(PAGE, { headers: { 'content-type': 'text/html' } })
        const file = normalize(join(DIST, path.slice('/sdk/'.length)))
        if (!file.startsWith(DIST)) return new Response('no', { status: 404 })
        return new Response(Bun.file(file), { headers: { 'content-type': 'text/javascript' } })
      },
    })
    browser = await launchChromium()
    page = await browser.newPage()
    page.on('request', (r) => requests.push(`${r.method()} ${new URL(r.url()).pathname}`))
    page.on('response', (r) => responses.push(`${r.status()} ${new URL(r.url()).pathname}`))
    page.on('pageerror', (e) => pageErrors.push(e.message))
    await page.goto(`http://127.0.0.1:${site.port}/?flagship=${encodeURIComponent(srv.url)}&token=${token}`)
    await page.waitForFunction(() => window.remote?.ready || window.remote?.error, null, { timeout: 15_000 })
    expect(await page.evaluate(() => window.remote.error)).toBeNull()
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    site?.stop(true)
    await srv?.stop()
  })

  test("the service's values for the page's context, client_side flags only; no definitions asked for", async () => {
    expect(await page.evaluate(() => window.remote.client.all())).toEqual({ banner: 'pro' })
    expect(await page.evaluate(() => window.remote.client.evaluate('internal', 'fallback').value)).toBe('fallback')
    expect(requests).toContain('POST /ofrep/v1/evaluate/flags')
    expect(requests.some((r) => r.includes('/api/v1/definitions'))).toBe(false)
    expect(pageErrors).toEqual([])
  })

  test("a change arrives within a second over OFREP's stream", async () => {
    // The stream is open (its answer's headers are in) before the change is made.
    for (let waited = 0; !responses.includes('200 /ofrep/v1/stream') && waited < 10_000; waited += 20) await Bun.sleep(20)
    expect(responses).toContain('200 /ofrep/v1/stream')
    const started = Date.now()
    expect(
      (
        await api(srv, 'PUT', '/api/v1/flags/banner', {
          token: srv.adminToken,
          body: { targeting: { rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'pro' }], value: 'pro-2' }] } },
        })
      ).status,
    ).toBe(200)
    await page.waitForFunction(() => window.remote.client.evaluate('banner').value === 'pro-2', null, { timeout: 1000, polling: 10 })
    expect(Date.now() - started).toBeLessThan(1000)
    expect(pageErrors).toEqual([])
  })
})
