// The console's insight and operations views in Chromium: a flag's usage chart (per variant, by
// environment, empty state), the flag list's sparklines and last evaluation (one usage read per row shown,
// none for rows on other pages), the stale flags with their reasons and Archive, and scheduled changes
// (scheduling from the flag page, countdowns, a change applied at its time, the Upcoming page, cancelling).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Browser, Page } from 'playwright-core'
import { browserSuite, launchChromium } from '../helpers/browser'
import { api, startServer, type TestServer } from '../helpers/server'

const HOUR = 3_600_000
const T = 60_000

browserSuite('console: insight and operations', () => {
  let srv: TestServer
  let browser: Browser
  const call = (method: string, path: string, body?: unknown) => api(srv, method, path, { token: srv.adminToken, body })
  /** counts as an SDK reports them, ending `agoMs` before now */
  const report = (key: string, counts: { environment: string; variant: string; count: number }[], agoMs = 0) => {
    const to = new Date(Date.now() - agoMs).toISOString()
    const from = new Date(Date.now() - agoMs - 60_000).toISOString()
    return call('POST', '/api/v1/usage', { counts: counts.map((c) => ({ key, ...c, from, to })) })
  }

  beforeAll(async () => {
    // The first test points at the current hour's bar, where the counts reported below are filed: never let
    // an hour begin between the report and that reading (a rare failure otherwise).
    const toNextHour = HOUR - (Date.now() % HOUR)
    if (toNextHour < 90_000) await Bun.sleep(toNextHour + 1_000)
    // A flag is stale after a day without evaluations (flags created now are not "never evaluated" yet).
    srv = await startServer({ env: { STALE_AFTER_DAYS: '1' } })
    browser = await launchChromium()
    expect((await call('GET', '/api/v1/project')).body.environments).toEqual(['development', 'staging', 'production'])
    // Created in this order, the list (by key) shows a-… first: 26 filler flags push zz-… to page 2.
    // `fresh` has a rule, so that reports may count `rule-1` (a variant it can serve).
    const rule = { targeting: { rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'pro' }], value: true }] } }
    for (const key of ['fresh', 'never', 'old-report'])
      expect((await call('POST', '/api/v1/flags', { key, enabled: false, value: true, ...(key === 'fresh' && rule) })).status).toBe(201)
    for (let i = 0; i < 26; i++)
      await call('POST', '/api/v1/flags', { key: `zz-filler-${String(i).padStart(2, '0')}`, enabled: true, value: true })
    expect(
      (
        await report('fresh', [
          { environment: 'production', variant: 'default', count: 40 },
          { environment: 'production', variant: 'rule-1', count: 7 },
          { environment: '', variant: 'default', count: 5 },
        ])
      ).body,
    ).toMatchObject({ accepted: 3 })
    expect((await report('old-report', [{ environment: '', variant: 'default', count: 3 }], 2 * 24 * HOUR)).body).toMatchObject({
      accepted: 1,
    })
  }, T + 100_000)
  afterAll(async () => {
    await browser?.close()
    await srv?.stop()
  })

  async function signIn(width = 1366): Promise<Page> {
    const page = await browser.newPage({ viewport: { width, height: 900 } })
    page.setDefaultTimeout(15_000)
    await page.goto(`${srv.url}/`)
    await page.waitForURL('**/signin')
    await page.getByLabel('Access token').fill(srv.adminToken)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('button', { name: 'Sign out' }).waitFor()
    return page
  }
  const openFlag = async (page: Page, key: string) => {
    await page.goto(`${srv.url}/flags/${key}`)
    await page.getByRole('heading', { name: key, exact: true }).waitFor()
  }
  /** how many pixels of the chart's canvas are drawn (not transparent) */
  const drawnPixels = (page: Page, selector: string) =>
    page
      .locator(`${selector} canvas`)
      .first()
      .evaluate((c: HTMLCanvasElement) => {
        const { data } = c.getContext('2d')!.getImageData(0, 0, c.width, c.height)
        let n = 0
        for (let i = 3; i < data.length; i += 4) if (data[i] > 0) n++
        return n
      })

  describe('usage', () => {
    test(
      'the flag page charts evaluations per variant, filters by environment, and says when there are none',
      async () => {
        const page = await signIn()
        await openFlag(page, 'fresh')
        const usage = page.getByRole('region', { name: 'Usage' })
        const legend = usage.getByRole('list', { name: 'Evaluations by variant' })
        await legend.waitFor()
        expect(await usage.locator('figcaption p').textContent()).toBe('52 evaluations in the last 7 days, per hour and variant:')
        expect(await legend.getByRole('listitem').allTextContents()).toEqual(['default 45 (87 %)', 'rule 1 7 (13 %)'])
        await page.locator('.usage-chart canvas').waitFor()
        expect(await drawnPixels(page, '.usage-chart')).toBeGreaterThan(500)
        // Pointing at the current hour (the last bar) reads out each variant's own count for it.
        const plot = (await page.locator('.usage-chart .u-over').boundingBox())!
        await page.mouse.move(plot.x + plot.width - 2, plot.y + plot.height / 2)
        const readout = page.locator('.usage-chart .u-legend')
        await readout.waitFor()
        expect(
          await readout
            .locator('.u-series')
            .evaluateAll((rows) =>
              rows.slice(1).map((r) => [r.querySelector('.u-label')?.textContent, r.querySelector('.u-value')?.textContent]),
            ),
        ).toEqual([
          ['rule 1', '7'],
          ['default', '45'],
        ])
        await page.screenshot({ path: `${import.meta.dir}/screenshots/insight-usage.png` }).catch(() => undefined)

        await usage.getByLabel('Environment').selectOption('production')
        await usage.getByText('47 evaluations in the last 7 days in production', { exact: false }).waitFor()
        expect(await legend.getByRole('listitem').allTextContents()).toEqual(['default 40 (85 %)', 'rule 1 7 (15 %)'])
        await usage.getByLabel('Environment').selectOption('staging')
        await usage.getByText('No evaluations in the last 7 days in staging').waitFor()
        await usage.getByLabel('Environment').selectOption('')
        await usage.getByText('5 evaluations in the last 7 days without an environment', { exact: false }).waitFor()
        await usage.getByLabel('Environment').selectOption('*')
        await usage.getByLabel('Range').selectOption('30d')
        await usage.getByText('52 evaluations in the last 30 days', { exact: false }).waitFor()

        // old-report was evaluated two days ago: in the last 7 days, not in the last 24 hours
        await openFlag(page, 'old-report')
        await usage.getByText('3 evaluations in the last 7 days', { exact: false }).waitFor()
        await usage.getByLabel('Range').selectOption('24h')
        await usage.getByText('No evaluations in the last 24 hours').waitFor()
        await openFlag(page, 'never')
        await usage.getByText('No evaluations in the last 7 days').waitFor()
        expect(await page.locator('.usage-chart').count()).toBe(0)
        await page.close()
      },
      T,
    )

    test(
      'the flag list shows each row’s last 24 hours and last evaluation, reading usage for the rows shown only, in one request',
      async () => {
        const page = await signIn()
        // Signing in lands on this list, which reads its usage too: let that read finish before counting, or
        // on a busy machine it is sent after the listener below is attached and counted as a second read.
        await page.getByRole('img', { name: 'fresh: 52 evaluations in the last 24 hours' }).waitFor()
        const read: string[] = []
        const requests: string[] = []
        page.on('request', (r) => {
          const url = new URL(r.url())
          if (/^\/api\/v1\/flags\/[^/]+\/usage$/.test(url.pathname)) requests.push(url.pathname)
          if (url.pathname === '/api/v1/usage') {
            requests.push(url.pathname)
            read.push(...url.searchParams.get('keys')!.split(','))
          }
        })
        await page.goto(`${srv.url}/`)
        const fresh = page.getByRole('img', { name: 'fresh: 52 evaluations in the last 24 hours' })
        await fresh.waitFor()
        await page.getByRole('img', { name: 'old-report: 0 evaluations in the last 24 hours' }).waitFor()
        await page.getByRole('img', { name: 'never: 0 evaluations in the last 24 hours' }).waitFor()
        await page.locator('.sparkline canvas').first().waitFor()
        expect(await drawnPixels(page, '.usage-cell')).toBeGreaterThan(50)
        const row = (key: string) => page.getByRole('row').filter({ has: page.getByRole('link', { name: key, exact: true }) })
        expect(await row('never').locator('td[data-label="Last evaluated"]').textContent()).toBe('Never')
        expect(await row('fresh').locator('td[data-label="Last evaluated"]').textContent()).toMatch(/now|seconds? ago|minutes? ago/)
        expect(await row('old-report').locator('td[data-label="Last evaluated"]').textContent()).toBe('2 days ago')
        await page.screenshot({ path: `${import.meta.dir}/screenshots/insight-list.png` }).catch(() => undefined)

        // One read for the 25 rows shown; the 4 flags on page 2 are read (together) only once it is shown.
        const shown = await page.locator('tbody tr td[data-label="Flag"] a').allTextContents()
        expect(shown).toHaveLength(25)
        await page.waitForFunction(() => document.querySelectorAll('.usage-cell[aria-label*="evaluations"]').length === 25)
        expect(new Set(read)).toEqual(new Set(shown))
        expect(read).toHaveLength(25)
        expect(requests).toEqual(['/api/v1/usage'])
        await page.getByRole('button', { name: 'Next' }).click()
        await page.getByRole('img', { name: 'zz-filler-25: 0 evaluations in the last 24 hours' }).waitFor()
        expect(read.filter((k) => !shown.includes(k)).sort()).toEqual(['zz-filler-22', 'zz-filler-23', 'zz-filler-24', 'zz-filler-25'])
        await page.close()
      },
      T,
    )
  })

  describe('stale flags', () => {
    test(
      'the Stale tab lists stale flags with the reason; Archive archives one in one click, Undo restores it',
      async () => {
        const page = await signIn()
        await page.goto(`${srv.url}/`)
        await page.getByRole('navigation', { name: 'Flag views' }).getByRole('link', { name: 'Stale' }).click()
        await page.waitForURL('**/stale')
        const table = page.getByRole('table', { name: 'Stale flags' })
        await table.waitFor()
        // fresh was evaluated just now, never was created less than a day ago: neither is stale
        expect(await table.locator('td[data-label="Flag"] a').allTextContents()).toEqual(['old-report'])
        const row = table.getByRole('row').filter({ hasText: 'old-report' })
        expect(await row.locator('td[data-label="Why"]').textContent()).toBe('Not evaluated recently')
        expect(await row.locator('td[data-label="Last evaluated"]').textContent()).toBe('2 days ago')
        await page.screenshot({ path: `${import.meta.dir}/screenshots/insight-stale.png` }).catch(() => undefined)

        // sent at the version the row shows, so a flag changed meanwhile is not archived unseen
        const sent = page.waitForRequest((r) => r.url().endsWith('/api/v1/flags/old-report/archive'))
        await row.getByRole('button', { name: 'Archive old-report' }).click()
        expect((await sent).headers()['if-match']).toBe('"1"')
        await page.getByRole('status').filter({ hasText: 'Archived old-report' }).waitFor()
        // archived flags are not listed (the list is of live flags): the only stale one is gone
        await page.getByText('No stale flags').waitFor()
        expect((await call('GET', '/api/v1/flags/old-report/definition')).body.flag).toMatchObject({ archived: true, version: 2 })
        expect((await call('GET', '/api/v1/flags?archived=true')).body.flags.map((f: any) => f.key)).toEqual(['old-report'])

        await page.getByRole('button', { name: 'Undo' }).click()
        await page.getByRole('status').filter({ hasText: 'Restored old-report' }).waitFor()
        await row.waitFor()
        expect((await call('GET', '/api/v1/flags/old-report/definition')).body.flag).toMatchObject({ version: 3 })
        expect((await call('GET', '/api/v1/flags/old-report/definition')).body.flag.archived).toBeUndefined()
        await page.close()
      },
      T,
    )
  })

  describe('scheduled changes', () => {
    /** `ms` from now as the browser's <input type="datetime-local"> value (its local time) */
    const localInput = (page: Page, ms: number) =>
      page.evaluate((ms) => {
        const d = new Date(Date.now() + ms)
        const p = (n: number) => String(n).padStart(2, '0')
        return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`
      }, ms)

    test(
      'scheduling from the flag page: the form, the countdown, and a refusal shown with its field',
      async () => {
        const page = await signIn()
        await openFlag(page, 'never')
        const panel = page.getByRole('region', { name: 'Scheduled changes' })
        await panel.getByText('Nothing scheduled for this flag.').waitFor()
        await panel.getByRole('button', { name: 'Schedule a change' }).click()
        const dialog = page.getByRole('dialog', { name: 'Schedule a change to “never”' })
        await dialog.getByLabel('When').fill(await localInput(page, 2 * HOUR))
        await dialog.getByLabel('Change', { exact: true }).selectOption({ label: 'Switch off in production' })
        await dialog.getByLabel('Note (optional)').fill('night switch')
        expect(await dialog.getByText('Will apply:').textContent()).toBe('Will apply: production: switch off.')
        await dialog.getByRole('button', { name: 'Schedule change' }).click()
        await dialog.waitFor({ state: 'detached' })

        const item = panel.getByRole('listitem').filter({ hasText: 'night switch' })
        await item.waitFor()
        expect(await item.locator('.schedule-change').textContent()).toBe('production: switch off')
        expect(await item.locator('.badge').textContent()).toBe('pending')
        const countdown = item.locator('.countdown')
        expect(await countdown.textContent()).toMatch(/^in (1 h 59|2 h 00) min$/)
        await page.screenshot({ path: `${import.meta.dir}/screenshots/insight-schedules.png` }).catch(() => undefined)
        const listed = await call('GET', '/api/v1/flags/never/schedules')
        expect(listed.body.schedules).toHaveLength(1)
        expect(listed.body.schedules[0]).toMatchObject({
          change: { environment: 'production', override: { enabled: false } },
          note: 'night switch',
          status: 'pending',
        })
        expect(Math.abs(Date.parse(listed.body.schedules[0].at) - (Date.now() + 2 * HOUR))).toBeLessThan(60_000)

        // A change the server refuses: the error names the field, nothing is stored.
        await panel.getByRole('button', { name: 'Schedule a change' }).click()
        await dialog.getByLabel('When').fill(await localInput(page, HOUR))
        await dialog.getByLabel('Change', { exact: true }).selectOption({ label: 'Other change (JSON)…' })
        await dialog.getByRole('textbox', { name: 'Change (JSON)' }).fill('{"enabled": "yes"}')
        await dialog.getByRole('button', { name: 'Schedule change' }).click()
        const alert = dialog.getByRole('alert')
        await alert.waitFor()
        expect(await alert.textContent()).toContain('Could not schedule the change')
        expect(await alert.textContent()).toMatch(/change.*enabled/i)
        await dialog.getByRole('button', { name: 'Cancel' }).click()
        expect((await call('GET', '/api/v1/flags/never/schedules')).body.total).toBe(1)
        await page.close()
      },
      T,
    )

    test(
      'a countdown reaches zero and the change shows as applied, the flag switched',
      async () => {
        const page = await signIn()
        await openFlag(page, 'fresh')
        const created = await call('POST', '/api/v1/flags/fresh/schedules', {
          at: new Date(Date.now() + 5_000).toISOString(),
          change: { enabled: true },
          note: 'go live',
        })
        expect(created.status).toBe(201)
        await page.reload()
        const item = page.getByRole('region', { name: 'Scheduled changes' }).getByRole('listitem').filter({ hasText: 'go live' })
        const countdown = item.locator('.countdown')
        expect(await countdown.textContent()).toMatch(/^in [1-5] s$/)
        const first = await countdown.textContent()
        await page.waitForFunction((t) => document.querySelector('.schedule-item .countdown')?.textContent !== t, first)
        expect(await item.locator('.schedule-change').textContent()).toBe('Switch on')
        await item.locator('.badge', { hasText: 'applied' }).waitFor({ timeout: 20_000 })
        expect(await item.textContent()).toContain('v2')
        // the flag itself, read again through the change stream
        await page.locator('.page-header .pill', { hasText: 'On' }).waitFor()
        await page.close()
      },
      T,
    )

    test(
      'the Upcoming page lists pending changes with countdowns and cancels one',
      async () => {
        const at = new Date(Date.now() + 3 * 24 * HOUR).toISOString()
        expect((await call('POST', '/api/v1/flags/zz-filler-01/schedules', { at, change: { value: false }, note: 'retire' })).status).toBe(
          201,
        )
        const page = await signIn()
        await page.getByRole('link', { name: 'Upcoming' }).click()
        await page.waitForURL('**/schedules')
        const table = page.getByRole('table', { name: 'Scheduled changes' })
        await table.waitFor()
        // pending only, soonest first: never's night switch (2 h), then zz-filler-01's (3 days)
        expect(await table.locator('td[data-label="Flag"]').allTextContents()).toEqual(['never', 'zz-filler-01'])
        const row = table.getByRole('row').filter({ hasText: 'retire' })
        expect(await row.locator('td[data-label="Change"]').textContent()).toBe('Value → false')
        expect(await row.locator('.countdown').textContent()).toMatch(/^in (2 d 23|3 d 0) h$/)
        await page.screenshot({ path: `${import.meta.dir}/screenshots/insight-upcoming.png` }).catch(() => undefined)

        await row.getByRole('button', { name: /^Cancel the change to zz-filler-01/ }).click()
        const dialog = page.getByRole('dialog', { name: 'Cancel this scheduled change?' })
        await dialog.getByRole('button', { name: 'Cancel the change' }).click()
        await dialog.waitFor({ state: 'detached' })
        await row.waitFor({ state: 'detached' })
        expect(await table.locator('td[data-label="Flag"]').allTextContents()).toEqual(['never'])
        const [cancelled] = (await call('GET', '/api/v1/flags/zz-filler-01/schedules')).body.schedules
        expect(cancelled).toMatchObject({ status: 'cancelled', note: 'retire' })

        // All: the history too, cancelled and applied ones without a Cancel button
        await page.getByRole('button', { name: 'All' }).click()
        await table.getByRole('row').filter({ hasText: 'retire' }).locator('.badge', { hasText: 'cancelled' }).waitFor()
        expect(await table.getByRole('row').filter({ hasText: 'go live' }).locator('.badge').textContent()).toBe('applied')
        expect(await table.getByRole('button', { name: /^Cancel the change/ }).count()).toBe(1)
        await page.getByRole('link', { name: 'zz-filler-01' }).click()
        await page.waitForURL('**/flags/zz-filler-01')
        await page.getByRole('region', { name: 'Scheduled changes' }).locator('.badge', { hasText: 'cancelled' }).waitFor()
        await page.close()
      },
      T,
    )
  })
})
