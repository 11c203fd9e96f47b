// The experiment pages in Chromium (docs/experiments.md §3, "Console"): the Metrics page and its form, the
// Experiments list (state, flag, environment, units, days running, decision), the form that sets one up on
// a flag with a split, and the results page: the health banner (SRM, multiple exposures, too few units),
// one row per metric and variant with its interval bar (green good, red bad), the units-over-time chart,
// and Ship <variant> / Roll back through the API's change path. Data: gbstats' checkout dataset replayed.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Browser, Page } from 'playwright-core'
import { browserSuite, launchChromium } from '../helpers/browser'
import { api, startServer, type TestServer } from '../helpers/server'
import { loadDataset, replay, type Dataset } from '../helpers/experiment-fixtures'

const T = 60_000

browserSuite('console: experiments', () => {
  let srv: TestServer
  let browser: Browser
  let checkout: Dataset
  const call = (method: string, path: string, body?: unknown) => api(srv, method, path, { token: srv.adminToken, body })
  const split = (variants: string[], weights: number[]) => ({
    enabled: true,
    variants: Object.fromEntries(variants.map((v) => [v, v.toUpperCase()])),
    default_variant: variants[0],
    targeting: { rollout: { attribute: 'user_id', distribution: variants.map((variant, i) => ({ variant, weight: weights[i] })) } },
  })
  const exposure = (flag: string, unit: string, variant: string) => ({
    type: 'exposure',
    flag,
    variant,
    context: { user_id: unit, environment: 'production' },
  })
  const track = (key: string, unit: string) => ({ type: 'track', key, context: { user_id: unit, environment: 'production' } })

  beforeAll(async () => {
    srv = await startServer()
    browser = await launchChromium()
    checkout = loadDataset('checkout-proportion-bayesian')
    await replay(srv, srv.adminToken, checkout)
    // A broken experiment: a 50/50 split that delivered 240 to 60 units, one unit in both variants, and an
    // error rate (lower is better) that quadrupled.
    expect((await call('POST', '/api/v1/flags', { key: 'xp-broken', ...split(['old', 'new'], [50, 50]) })).status).toBe(201)
    expect(
      (
        await call('POST', '/api/v1/metrics', {
          key: 'errors',
          name: 'Saw an error',
          kind: 'proportion',
          event: 'error',
          higher_is_better: false,
        })
      ).status,
    ).toBe(201)
    expect(
      (
        await call('POST', '/api/v1/experiments', {
          key: 'broken',
          name: 'Broken rollout',
          flag: 'xp-broken',
          environment: 'production',
          goal_metrics: ['errors'],
        })
      ).status,
    ).toBe(201)
    expect((await call('POST', '/api/v1/experiments/broken/start')).status).toBe(200)
    const events = [
      ...Array.from({ length: 240 }, (_, i) => exposure('xp-broken', `o${i}`, 'old')),
      ...Array.from({ length: 60 }, (_, i) => exposure('xp-broken', `n${i}`, 'new')),
      exposure('xp-broken', 'twice', 'old'),
      exposure('xp-broken', 'twice', 'new'),
      ...Array.from({ length: 12 }, (_, i) => track('error', `o${i * 20}`)),
      ...Array.from({ length: 30 }, (_, i) => track('error', `n${i * 2}`)),
    ]
    expect((await call('POST', '/api/v1/events', { events })).status).toBe(202)
    // A flag with a split for the form (no experiment yet).
    expect((await call('POST', '/api/v1/flags', { key: 'xp-search', ...split(['bm25', 'ltr'], [50, 50]) })).status).toBe(201)
  }, 3 * T)
  afterAll(async () => {
    await browser?.close()
    await srv?.stop()
  })

  async function signIn(): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1366, height: 900 } })
    page.setDefaultTimeout(20_000)
    await page.goto(`${srv.url}/`)
    await page.waitForURL('**/signin')
    await page.getByLabel('Access token').fill(srv.adminToken)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('button', { name: 'Sign out' }).waitFor()
    return page
  }

  describe('metrics', () => {
    test(
      'lists what each metric measures, defines a new one through the form, and refuses a bad one with the field',
      async () => {
        const page = await signIn()
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Metrics' }).click()
        await page.getByRole('heading', { name: 'Metrics' }).waitFor()
        const row = (key: string) => page.getByRole('row').filter({ hasText: key })
        expect(await row('cpb-support-ticket').locator('td[data-label="Measures"]').textContent()).toBe('has at least one support_ticket')
        expect(await row('cpb-support-ticket').locator('td[data-label="Good when"]').textContent()).toBe('lower')

        await page.getByRole('button', { name: 'New metric' }).click()
        const dialog = page.getByRole('dialog', { name: 'New metric' })
        await dialog.getByLabel('Key').fill('basket-per-session')
        await dialog.getByLabel('Name').fill('Basket per session')
        await dialog.getByLabel('Kind').selectOption('ratio')
        await dialog.getByLabel('Event', { exact: true }).fill('basket_value')
        await dialog.getByRole('combobox', { name: /^Per unit/ }).selectOption('sum')
        await dialog.getByLabel('Denominator event').fill('session_start')
        await dialog.getByRole('button', { name: 'Create metric' }).click()
        await dialog.waitFor({ state: 'detached' })
        expect(await row('basket-per-session').locator('td[data-label="Measures"]').textContent()).toBe(
          'sum of basket_value values ÷ session_start events',
        )
        const stored = await call('GET', '/api/v1/metrics/basket-per-session')
        expect(stored.body.metric).toMatchObject({
          kind: 'ratio',
          event: 'basket_value',
          aggregation: 'sum',
          denominator_event: 'session_start',
          denominator_aggregation: 'count',
          higher_is_better: true,
        })

        // a cap below zero is refused by the server, which names the field; nothing is created
        await page.getByRole('button', { name: 'New metric' }).click()
        await dialog.getByLabel('Key').fill('bad-cap')
        await dialog.getByLabel('Event', { exact: true }).fill('x')
        await dialog.getByLabel('Cap per unit').evaluate((el: HTMLInputElement) => el.removeAttribute('min'))
        await dialog.getByLabel('Cap per unit').fill('-3')
        await dialog.getByRole('button', { name: 'Create metric' }).click()
        await dialog.getByRole('alert').getByText(/cap/i).first().waitFor()
        expect((await call('GET', '/api/v1/metrics/bad-cap')).status).toBe(404)
        await page.close()
      },
      T,
    )
  })

  describe('experiments', () => {
    test(
      'the list shows state, flag, environment, units, days running and decision',
      async () => {
        const page = await signIn()
        const requested: string[] = []
        page.on('request', (r) => requested.push(new URL(r.url()).pathname))
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Experiments' }).click()
        await page.getByRole('heading', { name: 'Experiments' }).waitFor()
        const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'Checkout button colour' }) })
        await row.locator('td[data-label="Units"]').getByText('2,400').waitFor()
        // the units come from the cheap count, not from computing each experiment's results
        expect(requested).toContain('/api/v1/experiments/checkout-button-colour/units')
        expect(requested.filter((p) => p.endsWith('/results'))).toEqual([])
        expect(await row.locator('td').allTextContents()).toEqual([
          'Checkout button colourcheckout-button-colour',
          'running',
          'xp-checkout-button',
          'production',
          '2,400',
          '0',
          '',
        ])
        await page.getByRole('button', { name: 'Draft' }).click()
        await page.getByText('No draft experiments').waitFor()
        await page.close()
      },
      T,
    )

    test(
      "results: a healthy banner, each metric's rows with green, grey and red bars, the units chart",
      async () => {
        const page = await signIn()
        await page.goto(`${srv.url}/experiments/checkout-button-colour`)
        await page.getByRole('heading', { name: 'Checkout button colour' }).waitFor()
        const health = page.getByRole('status', { name: 'Health' })
        await health.waitFor()
        expect(await health.textContent()).toContain('SRM p = 0.111')

        const goal = page.getByRole('region', { name: 'cpb-purchase goal proportion' })
        const treatment = goal.locator('tr[data-variant="treatment"]')
        expect(await treatment.locator('td[data-label="Units"]').textContent()).toBe('1,161')
        expect(await treatment.locator('td[data-label="Mean"]').textContent()).toBe('13.61 %')
        expect(await treatment.locator('td[data-label="Lift"]').textContent()).toBe('+45.4 %')
        expect(await treatment.locator('td[data-label="Chance to win"]').textContent()).toBe('99.7 %')
        expect(await treatment.locator('td[data-label="Verdict"]').textContent()).toBe('better')
        const bar = treatment.getByRole('img', { name: '+45.4 %, interval +12.5 % to +78.2 %: better' })
        expect(await bar.getAttribute('data-tone')).toBe('good')
        expect(await bar.locator('rect').evaluate((r) => getComputedStyle(r).fill)).toBe('rgb(22, 163, 74)')
        // the bar lies right of zero
        const zero = Number(await bar.locator('line').getAttribute('x1'))
        expect(Number(await bar.locator('rect').getAttribute('x'))).toBeGreaterThan(zero)
        expect(await goal.locator('tr[data-variant="control"] td[data-label="Verdict"]').textContent()).toBe('control')

        const guardrail = page.getByRole('region', { name: 'cpb-support-ticket guardrail proportion' })
        const ticket = guardrail.locator('tr[data-variant="treatment"]')
        expect(await ticket.locator('td[data-label="Verdict"]').textContent()).toBe('no clear change')
        expect(await ticket.getByRole('img').getAttribute('data-tone')).toBe('neutral')
        expect(await ticket.locator('td[data-label="Chance to win"]').textContent()).toBe('6.0 %')

        const chart = page.getByRole('region', { name: 'Units over time' })
        expect(
          (await chart.getByRole('list', { name: 'Units by variant' }).getByRole('listitem').allTextContents()).map((t) => t.trim()),
        ).toEqual(['control: 1,239 units', 'treatment: 1,161 units'])
        await chart.locator('canvas').first().waitFor()
        const drawn = await chart
          .locator('canvas')
          .first()
          .evaluate((c: HTMLCanvasElement) => {
            const { data } = c.getContext('2d')!.getImageData(0, 0, c.width, c.height)
            let n = 0
            for (let i = 3; i < data.length; i += 4) if (data[i] > 0) n++
            return n
          })
        expect(drawn).toBeGreaterThan(200)
        await page.close()
      },
      T,
    )

    test(
      'the banner warns of SRM, multiple exposures and too few units; a worse lower-is-better metric is red',
      async () => {
        const page = await signIn()
        await page.goto(`${srv.url}/experiments/broken`)
        const health = page.getByRole('alert', { name: 'Health' })
        await health.waitFor()
        const issues = await health.getByRole('listitem').evaluateAll((items) => items.map((i) => i.getAttribute('data-issue')))
        expect(issues).toEqual(['srm', 'multiple_exposures', 'too_few_units'])
        expect(await health.textContent()).toContain('1 unit was served more than one variant')
        expect(await health.textContent()).toContain('new: 60')
        const row = page.locator('tr[data-variant="new"]')
        expect(await row.locator('td[data-label="Verdict"]').textContent()).toBe('worse')
        const bar = row.getByRole('img')
        expect(await bar.getAttribute('data-tone')).toBe('bad')
        expect(await bar.locator('rect').evaluate((r) => getComputedStyle(r).fill)).toBe('rgb(220, 38, 38)')
        await page.close()
      },
      T,
    )

    test(
      'the form sets one up on a flag with a split; Start runs it; Ship <variant> serves that variant and stops it',
      async () => {
        const page = await signIn()
        await page.goto(`${srv.url}/experiments`)
        await page.getByRole('button', { name: 'New experiment' }).click()
        const dialog = page.getByRole('dialog', { name: 'New experiment' })
        await dialog.getByLabel('Key').fill('search-ltr')
        await dialog.getByLabel('Name').fill('Learned ranking')
        await dialog.getByLabel('Flag').selectOption('xp-search')
        await dialog.getByLabel('Environment').selectOption('production')
        await dialog.getByText('Split in production: bm25 50 % · ltr 50 %').waitFor()
        await dialog.getByLabel('Role of basket-per-session').selectOption('goal')
        await dialog.getByLabel('Role of errors').selectOption('guardrail')
        await dialog.getByLabel('Engine').selectOption('frequentist')
        await dialog.getByLabel('Correction over goals × variants').selectOption('holm')
        await dialog.getByRole('button', { name: 'Create experiment' }).click()
        await page.waitForURL('**/experiments/search-ltr')
        await page.getByRole('heading', { name: 'Learned ranking' }).waitFor()
        const stored = (await call('GET', '/api/v1/experiments/search-ltr')).body.experiment
        expect(stored).toMatchObject({
          state: 'draft',
          flag: 'xp-search',
          environment: 'production',
          control: 'bm25',
          goal_metrics: ['basket-per-session'],
          guardrail_metrics: ['errors'],
          engine: 'frequentist',
          sequential: true,
          correction: 'holm',
          cuped: true,
        })

        await page.getByRole('button', { name: 'Start' }).click()
        await page.getByRole('group', { name: 'Decision' }).waitFor()
        expect((await call('GET', '/api/v1/experiments/search-ltr')).body.experiment.state).toBe('running')
        // no units yet: the banner says so
        await page.getByRole('alert', { name: 'Health' }).getByText('Too few units.').waitFor()

        await page.getByRole('button', { name: 'Ship ltr' }).click()
        const confirm = page.getByRole('dialog', { name: 'Ship ltr?' })
        await confirm.getByRole('button', { name: 'Ship ltr' }).click()
        await confirm.waitFor({ state: 'detached' })
        await page.getByText('shipped ltr').waitFor()
        const after = (await call('GET', '/api/v1/experiments/search-ltr')).body.experiment
        expect(after).toMatchObject({ state: 'stopped', decision: { decision: 'ship', variant: 'ltr' } })
        // every unit that reaches the split in production is served ltr now
        const served = await call(
          'GET',
          `/api/v1/flags/xp-search?context=${encodeURIComponent(JSON.stringify({ user_id: 'someone', environment: 'production' }))}`,
        )
        expect(served.body.variant).toBe('ltr')
        await page.close()
      },
      T,
    )

    test(
      'Roll back serves the control; a draft can be deleted',
      async () => {
        const page = await signIn()
        await page.goto(`${srv.url}/experiments/broken`)
        await page.getByRole('button', { name: 'Roll back' }).click()
        await page.getByRole('dialog', { name: 'Roll back?' }).getByRole('button', { name: 'Roll back' }).click()
        await page.getByText('rolled back').first().waitFor()
        expect((await call('GET', '/api/v1/experiments/broken')).body.experiment).toMatchObject({
          state: 'stopped',
          decision: { decision: 'rollback' },
        })
        const served = await call(
          'GET',
          `/api/v1/flags/xp-broken?context=${encodeURIComponent(JSON.stringify({ user_id: 'n1', environment: 'production' }))}`,
        )
        expect(served.body.variant).toBe('old')
        // the stopped experiment keeps its results and offers no decision any more
        await page.getByRole('alert', { name: 'Health' }).waitFor()
        expect(await page.getByRole('group', { name: 'Decision' }).count()).toBe(0)

        expect(
          (
            await call('POST', '/api/v1/experiments', {
              key: 'draft-one',
              name: 'Draft one',
              flag: 'xp-broken',
              environment: 'staging',
              goal_metrics: ['errors'],
            })
          ).status,
        ).toBe(201)
        await page.goto(`${srv.url}/experiments/draft-one`)
        await page.getByText('Results appear once the experiment is started').waitFor()
        await page.getByRole('button', { name: 'Delete' }).click()
        await page.getByRole('dialog', { name: 'Delete draft-one?' }).getByRole('button', { name: 'Delete experiment' }).click()
        await page.waitForURL(/\/experiments$/)
        expect((await call('GET', '/api/v1/experiments/draft-one')).status).toBe(404)
        await page.close()
      },
      T,
    )

    test(
      'in a protected environment a decision waits for review: the page links its change request',
      async () => {
        expect(
          (
            await call('PUT', '/api/v1/project/environments/staging/policy', {
              protected: true,
              required_approvals: 1,
              approver_role: 'editor',
            })
          ).status,
        ).toBe(200)
        expect(
          (
            await call('POST', '/api/v1/experiments', {
              key: 'guarded',
              name: 'Guarded',
              flag: 'xp-broken',
              environment: 'staging',
              goal_metrics: ['errors'],
            })
          ).status,
        ).toBe(201)
        expect((await call('POST', '/api/v1/experiments/guarded/start')).status).toBe(200)
        const page = await signIn()
        await page.goto(`${srv.url}/experiments/guarded`)
        await page.getByRole('button', { name: 'Ship new' }).click()
        await page.getByRole('dialog', { name: 'Ship new?' }).getByRole('button', { name: 'Ship new' }).click()
        const notice = page.getByRole('status').filter({ hasText: 'staging is protected' })
        await notice.waitFor()
        const experiment = (await call('GET', '/api/v1/experiments/guarded')).body.experiment
        expect(experiment.state).toBe('running')
        expect(experiment.pending_change_request).toBeTruthy()
        expect(await notice.getByRole('link', { name: 'its change request' }).getAttribute('href')).toBe(
          `/changes/${experiment.pending_change_request}`,
        )
        // no second decision while one waits; the notice stays after a reload
        expect(await page.getByRole('group', { name: 'Decision' }).count()).toBe(0)
        await page.reload()
        await page.getByRole('status').filter({ hasText: 'staging is protected' }).waitFor()
        await page.close()
      },
      T,
    )

    test(
      'live: an experiment started elsewhere shows its results without a reload',
      async () => {
        expect(
          (
            await call('POST', '/api/v1/experiments', {
              key: 'live-one',
              name: 'Live one',
              flag: 'xp-search',
              environment: 'development',
              goal_metrics: ['errors'],
            })
          ).status,
        ).toBe(201)
        const page = await signIn()
        await page.goto(`${srv.url}/experiments/live-one`)
        await page.getByText('Results appear once the experiment is started').waitFor()
        expect((await call('POST', '/api/v1/experiments/live-one/start')).status).toBe(200)
        await page.getByRole('group', { name: 'Decision' }).waitFor()
        await page.getByRole('alert', { name: 'Health' }).getByText('Too few units.').waitFor()
        await page.close()
      },
      T,
    )

    test(
      'a read-only token sees results but no way to create, start or decide',
      async () => {
        const created = await call('POST', '/api/v1/tokens', { name: 'reader', project_id: 'default', permissions: ['read:flags'] })
        expect(created.status).toBe(201)
        const page = await browser.newPage({ viewport: { width: 1366, height: 900 } })
        page.setDefaultTimeout(20_000)
        await page.goto(`${srv.url}/signin`)
        await page.getByLabel('Access token').fill(created.body.token)
        await page.getByRole('button', { name: 'Sign in' }).click()
        await page.getByRole('button', { name: 'Sign out' }).waitFor()
        await page.goto(`${srv.url}/experiments/checkout-button-colour`)
        await page.getByRole('status', { name: 'Health' }).waitFor()
        expect(await page.getByRole('group', { name: 'Decision' }).count()).toBe(0)
        await page.goto(`${srv.url}/experiments`)
        await page.getByRole('link', { name: 'Checkout button colour' }).waitFor()
        expect(await page.getByRole('button', { name: 'New experiment' }).count()).toBe(0)
        // (not /metrics: that is the server's Prometheus endpoint)
        await page.goto(`${srv.url}/experiment-metrics`)
        await page.getByRole('heading', { name: 'Metrics' }).waitFor()
        expect(await page.getByRole('button', { name: 'New metric' }).count()).toBe(0)
        await page.close()
      },
      T,
    )
  })
})
