// The page snippet of the README as written: a page on another origin imports the SDK straight from the
// service (`import … from 'https://<service>/sdk/flagship.js'`), no bundler, and evaluates a flag in Chromium.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Browser } from 'playwright-core'
import { api, createToken, startServer, type TestServer } from '../helpers/server'
import { browserSuite, launchChromium } from '../helpers/browser'

browserSuite('flagship.js imported from the service by a page on another origin', () => {
  let srv: TestServer
  let site: ReturnType<typeof Bun.serve>
  let browser: Browser
  let token: string

  beforeAll(async () => {
    srv = await startServer()
    expect((await api(srv, 'POST', '/api/v1/flags', { token: srv.adminToken, body: { key: 'new-checkout', enabled: true, value: false, targeting: { rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'pro' }], value: true }] } } })).status).toBe(201)
    token = await createToken(srv, ['read:flags'])
    const page = `<!doctype html><title>shop</title><p id="out">…</p>
<script type="module">
  import { createClient } from '${srv.url}/sdk/flagship.js'
  const flags = createClient({ url: '${srv.url}', token: '${token}' })
  await flags.ready()
  document.getElementById('out').textContent = JSON.stringify(flags.evaluate('new-checkout', { user_id: 'u-42', plan: 'pro' }, false))
</script>`
    site = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response(page, { headers: { 'content-type': 'text/html' } }) })
    browser = await launchChromium()
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    site?.stop(true)
    await srv?.stop()
  })

  test('the page evaluates with the module it imported from the service', async () => {
    const tab = await browser.newPage()
    const errors: string[] = []
    tab.on('pageerror', (e) => errors.push(e.message))
    tab.on('console', (m) => m.type() === 'error' && errors.push(m.text()))
    await tab.goto(`http://127.0.0.1:${site.port}/`)
    await tab.waitForFunction(() => document.getElementById('out')?.textContent !== '…', null, { timeout: 15_000 })
    expect(errors).toEqual([])
    expect(JSON.parse((await tab.textContent('#out'))!)).toEqual({ value: true, type: 'boolean', reason: 'targeting' })
  })
})
