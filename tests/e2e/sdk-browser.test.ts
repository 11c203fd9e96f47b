// The built flagship-sdk in Chromium, on a page served from another origin (so CORS is real): it loads
// the up-front bundle only, evaluates as the server does, follows a change within a second over the
// stream (fetch with the Authorization header, no ticket), and fetches the regex chunk only when a flag
// starts using `matches`.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { join, normalize } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { buildSdk, DIST } from '../../sdk/build'
import { api, createToken, startServer, type TestServer } from '../helpers/server'
import { browserSuite, launchChromium } from '../helpers/browser'

declare global {
  interface Window {
    sdk: { client: { evaluate(key: string, context?: unknown): unknown; version: number }; ready: boolean; error: string | null }
  }
}

const PAGE = `<!doctype html><title>sdk</title><script type="module">
import { createClient } from '/sdk/index.js'
const q = new URLSearchParams(location.search)
const client = createClient({ url: q.get('flagship'), token: q.get('token') })
window.sdk = { client, ready: false, error: null }
client.ready().then(() => (window.sdk.ready = true), (e) => (window.sdk.error = String(e)))
</script>`

browserSuite('flagship-sdk in Chromium', () => {
  let srv: TestServer
  let site: ReturnType<typeof Bun.serve>
  let browser: Browser
  let page: Page
  const requests: string[] = []
  const pageErrors: string[] = []

  beforeAll(async () => {
    srv = await startServer()
    expect(
      (
        await api(srv, 'POST', '/api/v1/flags', {
          token: srv.adminToken,
          body: {
            key: 'banner',
            enabled: true,
            value: 'a',
            targeting: { rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'pro' }], value: 'pro' }] },
          },
        })
      ).status,
    ).toBe(201)
    const token = await createToken(srv, ['read:flags'])
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
    page.on('pageerror', (e) => pageErrors.push(e.message))
    await page.goto(`http://127.0.0.1:${site.port}/?flagship=${encodeURIComponent(srv.url)}&token=${token}`)
    await page.waitForFunction(() => window.sdk?.ready || window.sdk?.error, null, { timeout: 15_000 })
    expect(await page.evaluate(() => window.sdk.error)).toBeNull()
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    site?.stop(true)
    await srv?.stop()
  })

  test('evaluates as GET /flags/:key does, having loaded no regex chunk', async () => {
    for (const context of [{ plan: 'pro' }, { plan: 'free' }, {}]) {
      const server = await api(srv, 'GET', `/api/v1/flags/banner?context=${encodeURIComponent(JSON.stringify(context))}`, {
        token: srv.adminToken,
      })
      expect(await page.evaluate((c) => window.sdk.client.evaluate('banner', c), context)).toEqual(server.body)
    }
    expect(requests.filter((r) => r.includes('/sdk/'))).toEqual(expect.arrayContaining(['GET /sdk/index.js']))
    expect(requests.some((r) => r.includes('re2'))).toBe(false)
    expect(requests.some((r) => r === 'GET /api/v1/stream')).toBe(true)
    expect(pageErrors).toEqual([])
  })

  test('a change arrives within a second; a flag using `matches` loads the regex chunk, then answers', async () => {
    const started = Date.now()
    expect((await api(srv, 'PUT', '/api/v1/flags/banner', { token: srv.adminToken, body: { value: 'b' } })).status).toBe(200)
    await page.waitForFunction(() => (window.sdk.client.evaluate('banner') as { value: string }).value === 'b', null, {
      timeout: 1000,
      polling: 10,
    })
    expect(Date.now() - started).toBeLessThan(1000)

    const rules = [{ conditions: [{ property: 'email', operator: 'matches', value: '@example\\.com$' }], value: 'staff' }]
    expect((await api(srv, 'PUT', '/api/v1/flags/banner', { token: srv.adminToken, body: { targeting: { rules } } })).status).toBe(200)
    await page.waitForFunction(
      () => (window.sdk.client.evaluate('banner', { email: 'a@example.com' }) as { value: string }).value === 'staff',
      null,
      { timeout: 3000, polling: 10 },
    )
    expect(await page.evaluate(() => window.sdk.client.evaluate('banner', { email: 'a@example.org' }))).toEqual({
      value: 'b',
      type: 'string',
      reason: 'default',
    })
    expect(requests.filter((r) => /\/sdk\/chunks\/re2-[^/]+\.js$/.test(r))).toHaveLength(1)
    expect(pageErrors).toEqual([])
  })
})
