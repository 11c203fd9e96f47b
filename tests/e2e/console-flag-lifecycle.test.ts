// A flag's life in the console, in Chromium: the variants editor (a split whose weights always sum to 100,
// with the share of users who move), the prerequisites picker that refuses a cycle before saving, metadata
// and tag filter chips, archive and restore, history with a diff and rollback, and the playground that
// evaluates the draft being edited with its trace.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Browser, Page } from 'playwright-core'
import { browserSuite, launchChromium } from '../helpers/browser'
import { api, startServer, type TestServer } from '../helpers/server'

const T = 60_000

browserSuite('console: a flag over its life', () => {
  let srv: TestServer
  let browser: Browser
  const problems: string[] = []
  const call = (method: string, path: string, body?: unknown) => api(srv, method, path, { token: srv.adminToken, body })
  const definition = async (key: string) => (await call('GET', `/api/v1/flags/${key}/definition`)).body.flag

  beforeAll(async () => {
    srv = await startServer()
    browser = await launchChromium()
    for (const body of [
      { key: 'colours', enabled: true, value: 'blue', description: 'Button colour', tags: ['checkout'] },
      { key: 'gate', enabled: true, value: true, tags: ['checkout', 'infra'] },
      { key: 'needs-colours', enabled: true, value: true, tags: ['infra'] },
    ])
      expect((await call('POST', '/api/v1/flags', body)).status).toBe(201)
  }, T)
  afterAll(async () => {
    await browser?.close()
    await srv?.stop()
  })

  async function openFlag(key: string): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1366, height: 900 } })
    page.setDefaultTimeout(15_000)
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`))
    await page.goto(`${srv.url}/`)
    await page.waitForURL('**/signin')
    await page.getByLabel('Access token').fill(srv.adminToken)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('button', { name: 'Sign out' }).waitFor()
    await page.goto(`${srv.url}/flags/${key}`)
    await page.getByRole('heading', { name: key, exact: true }).waitFor()
    return page
  }
  const save = async (page: Page) => {
    await page.getByRole('button', { name: 'Save changes' }).click()
    await page.getByText('All changes saved').waitFor()
  }

  test(
    'variants with a weighted split that always sums to 100 %, and the share of users who move',
    async () => {
      const page = await openFlag('colours')
      await page.getByRole('button', { name: 'Use variants' }).click()
      await page.getByLabel('Variant 1 name').fill('blue')
      await page.getByLabel('Variant 2 name').fill('green')
      await page.getByLabel('Variant 2 value').fill('"green"')
      await page.getByRole('button', { name: '+ Add variant' }).click()
      await page.getByLabel('Variant 3 name').fill('red')
      await page.getByLabel('Variant 3 value').fill('"red"')
      await page.getByLabel('Default variant').selectOption('blue')
      await page.getByLabel('Off variant').selectOption('red')
      await page.getByText('Roll out by bucket').click()
      await page.getByText('Split by weight between variants').click()
      await page.getByRole('button', { name: '+ Add slice' }).click()
      expect(await page.getByTestId('split-total').textContent()).toBe('Total: 100%')
      await page.getByLabel('Split slice 1 weight').fill('50')
      // The slices after the edited one give up the weight: still 100 % in all.
      expect(await page.getByTestId('split-total').textContent()).toBe('Total: 100%')
      expect(await page.getByLabel('Split slice 2 weight').inputValue()).toBe('16.67')
      await page.getByLabel('Split slice 2 weight').fill('25')
      expect(await page.getByLabel('Split slice 3 weight').inputValue()).toBe('25')
      await save(page)
      const saved = await definition('colours')
      expect(saved).toMatchObject({
        variants: { blue: 'blue', green: 'green', red: 'red' },
        default_variant: 'blue',
        off_variant: 'red',
        value: 'blue',
        targeting: {
          rollout: {
            attribute: 'user_id',
            distribution: [
              { variant: 'blue', weight: 50 },
              { variant: 'green', weight: 25 },
              { variant: 'red', weight: 25 },
            ],
          },
        },
      })
      // Moving 10 % from blue to green moves exactly those users.
      await page.getByLabel('Split slice 1 weight').fill('40')
      expect(await page.getByLabel('Split slice 2 weight').inputValue()).toBe('35')
      await page.getByTestId('split-moved').getByText('10.00% of users would get a different variant').waitFor()
      // A variant still used by the split cannot be removed.
      await page.getByLabel('Remove variant 3').click()
      await page.getByText('Split slice 3: unknown variant "red"').waitFor()
      await page
        .getByRole('button', { name: 'Discard' })
        .click()
        .catch(() => undefined)
      await page.close()
    },
    T,
  )

  test(
    'the playground evaluates the draft and shows the trace; the saved flag is untouched until saved',
    async () => {
      const page = await openFlag('colours')
      await page.getByRole('button', { name: '+ Add rule' }).click()
      await page.getByLabel('Rule 1 condition 1 property').fill('plan')
      await page.getByLabel('Rule 1 condition 1 value').fill('pro')
      await page.getByLabel('Rule 1 variant').selectOption('green')
      await page.getByLabel('Context user_id').fill('u-1')
      await page.getByLabel('Context plan').fill('pro')
      await page.getByRole('button', { name: 'Evaluate' }).click()
      const result = page.getByRole('region', { name: 'Evaluation result' })
      await result.getByTestId('eval-variant').getByText('green').waitFor()
      expect(await result.getByTestId('eval-reason').textContent()).toBe('targeting')
      const decided = result.locator('.trace-decided')
      expect(await decided.getAttribute('data-step')).toBe('rule')
      expect(await result.locator('.trace-conditions li').first().textContent()).toContain('plan = "pro", equals "pro": yes')
      await result.getByText('Evaluated: the draft').waitFor()
      // Nothing saved: the stored flag has no rule, and the server's own answer is the split's.
      expect((await definition('colours')).targeting.rules).toBeUndefined()
      expect((await call('GET', `/api/v1/flags/colours?context=${encodeURIComponent('{"user_id":"u-1","plan":"pro"}')}`)).body.reason).toBe(
        'rollout',
      )
      await save(page)
      expect((await definition('colours')).targeting.rules).toEqual([
        { conditions: [{ property: 'plan', operator: 'equals', value: 'pro' }], variant: 'green' },
      ])
      await page.close()
    },
    T,
  )

  test(
    'prerequisites: a flag and its variant are picked; a cycle is refused before saving',
    async () => {
      let page = await openFlag('needs-colours')
      await page.getByRole('button', { name: '+ Add prerequisite' }).click()
      await page.getByLabel('Prerequisite 1 flag').selectOption('colours')
      await page.getByLabel('Prerequisite 1 variant').selectOption('green')
      await save(page)
      expect((await definition('needs-colours')).prerequisites).toEqual([{ key: 'colours', variant: 'green' }])
      await page.close()

      page = await openFlag('colours')
      await page.getByRole('button', { name: '+ Add prerequisite' }).click()
      await page.getByLabel('Prerequisite 1 flag').selectOption('needs-colours')
      await page.getByRole('alert').getByText('Would create a cycle: colours → needs-colours → colours').waitFor()
      // Saving is refused while the cycle is there (the server would refuse it too).
      expect(await page.getByRole('button', { name: 'Save changes' }).isDisabled()).toBe(true)
      await page.getByText('Prerequisites: would create a cycle: colours → needs-colours → colours').waitFor()
      expect((await definition('colours')).prerequisites).toBeUndefined()
      await page.getByLabel('Prerequisite 1 flag').selectOption('gate')
      await page.getByLabel('Prerequisite 1 value').fill('true')
      await save(page)
      expect((await definition('colours')).prerequisites).toEqual([{ key: 'gate', value: true }])
      await page.close()
    },
    T,
  )

  test(
    'metadata, tag filter chips and the archived view; archive and restore',
    async () => {
      const page = await openFlag('gate')
      await page.getByLabel('Description').fill('Kill switch for the new checkout')
      await page.getByLabel('Owner').fill('payments team')
      await page.getByLabel('New tag').fill('payments')
      await page.keyboard.press('Enter')
      await page.getByRole('button', { name: 'Remove tag infra' }).click()
      await save(page)
      expect(await definition('gate')).toMatchObject({
        description: 'Kill switch for the new checkout',
        owner: 'payments team',
        tags: ['checkout', 'payments'],
      })

      await page.goto(`${srv.url}/`)
      await page.getByRole('link', { name: 'needs-colours', exact: true }).waitFor()
      await page.getByRole('group', { name: 'Filter by tag' }).getByRole('button', { name: 'checkout', exact: true }).click()
      await page.getByRole('button', { name: 'Stop filtering by tag checkout' }).waitFor()
      await page.getByRole('link', { name: 'needs-colours', exact: true }).waitFor({ state: 'detached' })
      expect(await page.locator('tbody tr td[data-label="Flag"] a').allTextContents()).toEqual(['colours', 'gate'])
      await page.getByRole('group', { name: 'Filter by tag' }).getByRole('button', { name: 'payments', exact: true }).click()
      await page.getByRole('link', { name: 'colours', exact: true }).waitFor({ state: 'detached' })
      expect(await page.locator('tbody tr td[data-label="Flag"] a').allTextContents()).toEqual(['gate'])

      // needs-colours requires colours: archiving colours is refused (IN_USE); needs-colours itself is not.
      await page.goto(`${srv.url}/flags/needs-colours`)
      await page.getByRole('button', { name: 'Archive flag' }).click()
      await page.getByRole('dialog').getByRole('button', { name: 'Archive flag' }).click()
      await page.getByText(/Archived .*not evaluated anywhere/).waitFor()
      expect((await call('GET', '/api/v1/flags/needs-colours')).status).toBe(404)
      expect(await page.getByRole('button', { name: 'Save changes' }).count()).toBe(0)
      await page.goto(`${srv.url}/archived`)
      await page.getByRole('link', { name: 'needs-colours', exact: true }).waitFor()
      expect(await page.locator('tbody tr td[data-label="Flag"] a').allTextContents()).toEqual(['needs-colours'])
      await page.getByRole('link', { name: 'needs-colours', exact: true }).click()
      await page.getByRole('button', { name: 'Restore flag' }).click()
      await page.getByRole('dialog').getByRole('button', { name: 'Restore flag' }).click()
      await page.getByRole('button', { name: 'Archive flag' }).waitFor()
      expect((await call('GET', '/api/v1/flags/needs-colours')).status).toBe(200)
      await page.close()
    },
    T,
  )

  test(
    'history: versions newest first, a diff against the current one, one-click rollback',
    async () => {
      const page = await openFlag('gate')
      const history = page.getByRole('region', { name: 'History' })
      await history.getByRole('button', { name: 'Version 1' }).click()
      await history.getByText('Rolling back to v1 would change: current (v2) → v1').waitFor()
      expect(await history.locator('table').textContent()).toContain('Kill switch for the new checkout')
      await history.getByRole('button', { name: 'Roll back to v1' }).click()
      await page.getByRole('dialog', { name: 'Roll back to version 1?' }).getByRole('button', { name: 'Roll back' }).click()
      await history.getByRole('button', { name: 'Version 3' }).waitFor()
      const flag = await definition('gate')
      expect(flag).toMatchObject({ version: 3, tags: ['checkout', 'infra'] })
      expect(flag.description).toBeUndefined()
      expect((await call('GET', '/api/v1/flags/gate/history')).body.versions[0]).toMatchObject({ version: 3, action: 'rollback' })
      await page.close()
    },
    T,
  )

  test('no uncaught exceptions', () => {
    expect(problems).toEqual([])
  })
})
