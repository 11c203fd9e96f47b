// The OpenFeature web SDK with the generic OFREP web provider, in Chromium, on a page served from another
// origin (so CORS is real): it evaluates Flagship's flags and follows changes over the OFREP event stream
// (polling off) within 3 s of a change made through the API.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { api, createToken, startServer, type TestServer } from '../helpers/server'
import { browserSuite, launchChromium } from '../helpers/browser'

browserSuite('OpenFeature web SDK + OFREP web provider in Chromium', () => {
  let srv: TestServer
  let site: ReturnType<typeof Bun.serve>
  let browser: Browser
  let page: Page
  let token: string
  const requests: string[] = []

  beforeAll(async () => {
    srv = await startServer()
    const admin = srv.adminToken
    await api(srv, 'POST', '/api/v1/flags', { token: admin, body: { key: 'web-banner', enabled: true, value: false } })
    await api(srv, 'POST', '/api/v1/flags', { token: admin, body: { key: 'web-color', enabled: true, value: 'red' } })
    token = await createToken(srv, ['read:flags'])
    const built = await Bun.build({
      entrypoints: [join(import.meta.dir, 'fixtures', 'openfeature-page.ts')],
      target: 'browser',
      format: 'esm',
      minify: true,
    })
    if (!built.success) throw new Error(built.logs.join('\n'))
    const script = await built.outputs[0]!.text()
    site = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch: (req) =>
        new URL(req.url).pathname === '/app.js'
          ? new Response(script, { headers: { 'content-type': 'text/javascript' } })
          : new Response('<!doctype html><title>app</title><script type="module" src="/app.js"></script>', {
              headers: { 'content-type': 'text/html' },
            }),
    })
    browser = await launchChromium()
    page = await browser.newPage()
    page.on('request', (r) => requests.push(`${r.method()} ${new URL(r.url()).pathname}`))
    const pageErrors: string[] = []
    page.on('pageerror', (e) => pageErrors.push(e.message))
    await page.goto(`http://127.0.0.1:${site.port}/?flagship=${encodeURIComponent(srv.url)}&token=${token}`)
    await page.waitForFunction(() => window.flags?.ready || window.flags?.error, null, { timeout: 15_000 })
    expect(await page.evaluate(() => window.flags.error ?? null)).toBeNull()
    expect(pageErrors).toEqual([])
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    site?.stop(true)
    await srv?.stop()
  })

  test('the page, on another origin, evaluates through OFREP with reasons and variants', async () => {
    expect(new URL(srv.url).port).not.toBe(String(site.port))
    const read = await page.evaluate(() => window.flags.read())
    expect(read).toMatchObject({
      enabled: false,
      color: 'red',
      details: { value: false, reason: 'STATIC', variant: 'default', flagMetadata: { flagVersion: 1 } },
    })
  })

  test('a change through the API reaches the page within 3 s over the event stream, with polling off', async () => {
    // The provider opened the stream the bulk answer named (a ticket URL, never the token).
    expect(requests.some((r) => r.startsWith('GET /ofrep/v1/stream'))).toBe(true)
    const bulkBefore = requests.filter((r) => r === 'POST /ofrep/v1/evaluate/flags').length
    await Bun.sleep(1500) // no polling: nothing is fetched while nothing changes
    expect(requests.filter((r) => r === 'POST /ofrep/v1/evaluate/flags').length).toBe(bulkBefore)

    for (const [value, color] of [
      [true, 'green'],
      [false, 'blue'],
    ] as const) {
      const started = Date.now()
      expect((await api(srv, 'PUT', '/api/v1/flags/web-banner', { token: srv.adminToken, body: { value } })).status).toBe(200)
      expect((await api(srv, 'PUT', '/api/v1/flags/web-color', { token: srv.adminToken, body: { value: color } })).status).toBe(200)
      await page.waitForFunction(
        ([v, c]) => window.flags.read().enabled === v && window.flags.read().color === c,
        [value, color] as const,
        { timeout: 3000, polling: 25 },
      )
      expect(Date.now() - started).toBeLessThan(3000)
    }
    expect(await page.evaluate(() => window.flags.changes)).toBeGreaterThanOrEqual(2)
  })
})
