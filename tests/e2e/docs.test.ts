// /docs in a real Chromium: the interactive API reference renders the operations, and every request the
// page makes goes to this server (a self-hosted install without internet works, and no other host learns
// who reads the docs); no links to hosted services.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Browser, Page } from 'playwright-core'
import { browserSuite, launchChromium } from '../helpers/browser'
import { startServer, type TestServer } from '../helpers/server'

/** Swagger UI mounts a long document's sections as they scroll into view (this one has over 128 operations):
 *  scrolls down until the operation on `path` is on the page. */
async function reveal(page: Page, path: string) {
  const target = page.locator('.opblock-summary-path', { hasText: path }).first()
  await page.locator('.opblock-tag').first().waitFor({ timeout: 20_000 })
  for (let i = 0; i < 400 && (await target.count()) === 0; i++) {
    await page.mouse.wheel(0, 600)
    await page.waitForTimeout(25)
  }
  await target.waitFor({ timeout: 10_000 })
}

browserSuite('/docs', () => {
  let srv: TestServer
  let browser: Browser
  beforeAll(async () => {
    srv = await startServer()
    browser = await launchChromium()
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await srv?.stop()
  })

  test('renders every documented operation, requests nothing from any other origin, links nowhere else', async () => {
    const page = await browser.newPage()
    const requested: string[] = []
    const errors: string[] = []
    page.on('request', (r) => requested.push(r.url()))
    page.on('pageerror', (e) => errors.push(e.message))
    await page.goto(`${srv.url}/docs`)
    await reveal(page, '/api/v1/flags/{key}')
    await reveal(page, '/api/v1/evaluate')
    await page.locator('.opblock-summary', { hasText: '/api/v1/evaluate' }).first().click()
    await page.getByText('Request body').first().waitFor()
    await reveal(page, '/api/v1/audit')
    const paths = await page.locator('.opblock-summary-path').allTextContents()
    expect(paths.map((p) => p.replace(/\u200b/g, ''))).toContain('/api/v1/audit')
    const origins = [...new Set(requested.map((u) => new URL(u).origin))]
    expect(origins).toEqual([srv.url])
    const links = await page.locator('a[href]').evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).href))
    expect(links.filter((href) => /^https?:/.test(href) && new URL(href).origin !== srv.url)).toEqual([])
    expect(errors).toEqual([])
    await page.close()
  }, 60_000)

  test('placeholders read as written (not eaten as HTML tags); X-API-Key is offered; the server is this one', async () => {
    const page = await browser.newPage()
    await page.goto(`${srv.url}/docs`)
    await reveal(page, '/api/v1/flags/{key}')
    expect(await page.locator('.servers select, .servers').first().textContent()).toContain(srv.url)
    await page.locator('button.authorize').first().click()
    const dialog = page.locator('.modal-ux')
    await dialog.getByText('X-API-Key').first().waitFor()
    expect(await dialog.textContent()).toContain('ff_{project}_{random}')
    await page.keyboard.press('Escape')
    await page.close()
  }, 60_000)
})
