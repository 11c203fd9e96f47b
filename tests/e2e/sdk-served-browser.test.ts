// The README's page snippet as written (the service's address and the token filled in): a page on another
// origin imports the SDK straight from the service (`import … from '<service>/sdk/flagship.js'`), no bundler,
// and evaluates a flag in Chromium.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
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
    // The quick start's flag, as its curl example makes it.
    expect(
      (
        await api(srv, 'POST', '/api/v1/flags', {
          token: srv.adminToken,
          body: {
            key: 'dark-mode',
            enabled: true,
            value: false,
            client_side: true,
            targeting: { rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'pro' }], value: true }] },
          },
        })
      ).status,
    ).toBe(201)
    // A client key, as the README's page holds.
    token = await createToken(srv, ['client'], { environment: 'production' })
    const readme = readFileSync(join(import.meta.dir, '..', '..', 'README.md'), 'utf8')
    const snippet = /```html\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf('\n### 5. In process, with the SDK\n')))![1]!
    expect(snippet).toContain("'ff_defa_…'")
    const served = snippet.replaceAll('http://localhost:8080', srv.url).replace("'ff_defa_…'", `'${token}'`)
    const page = `<!doctype html><title>shop</title><body>\n${served}</body>`
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
    await tab.waitForFunction(() => document.body.dataset.darkMode !== undefined, null, { timeout: 15_000 })
    expect(errors).toEqual([])
    expect(await tab.evaluate(() => document.body.dataset.darkMode)).toBe('true')
  })
})
