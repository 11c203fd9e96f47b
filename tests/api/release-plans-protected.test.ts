// Release plans in a protected environment (docs/experiments.md §7): the start is a change
// request (202, state awaiting_approval, nothing written); once it is applied the plan runs, its later
// steps apply without review under that approval, and a rollback passes as an emergency off (audited
// `emergency: true`, announced as change_request.bypassed). A rejected request sends the plan back to draft.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { api } from '../helpers/server'
import { sapi } from '../helpers/teams'
import { startWithPeople, type People } from '../helpers/people'
import { until } from '../helpers/until'
import { drive } from '../helpers/release-traffic'

const ADMIN = 'admin@example.com'
const EDITOR = 'editor@example.com'
const REVIEWER = 'reviewer@example.com'

describe('release plans in a protected environment', () => {
  let p: People
  const as = (who: string, method: string, path: string, body?: unknown) =>
    sapi(p.srv, method, path, { cookie: p.cookies[who], project: 'default', body })
  const asToken = (method: string, path: string, body?: unknown) => api(p.srv, method, path, { token: p.srv.adminToken, body })
  const plans = (flag: string) => `/api/v1/flags/${flag}/release-plans`
  const plan = async (flag: string, id: string) => (await asToken('GET', `${plans(flag)}/${id}`)).body.release_plan
  const definition = async (key: string) => (await asToken('GET', `/api/v1/flags/${key}/definition`)).body.flag
  const ok = <R extends { status: number; text: string }>(r: R): R => {
    expect(r.status, r.text).toBeLessThan(300)
    return r
  }
  /** Starts the plan as the editor (202), approves and applies its change request; the plan then runs. */
  async function approvedStart(flag: string, id: string): Promise<string> {
    const r = await as(EDITOR, 'POST', `${plans(flag)}/${id}/start`)
    expect(r.status, r.text).toBe(202)
    expect(r.body.release_plan).toMatchObject({ state: 'awaiting_approval', pending_change_request: r.body.change_request.id })
    const cr = r.body.change_request.id
    ok(await as(REVIEWER, 'POST', `/api/v1/change-requests/${cr}/reviews`, { decision: 'approve', revision: 1 }))
    ok(await as(EDITOR, 'POST', `/api/v1/change-requests/${cr}/apply`, { revision: 1 }))
    await until(`${id} running`, async () => ((await plan(flag, id)).state === 'running' ? true : undefined), 10_000, 50)
    return cr
  }

  beforeAll(async () => {
    p = await startWithPeople(
      [
        { email: ADMIN, role: 'admin' },
        { email: EDITOR, role: 'editor' },
        { email: REVIEWER, role: 'editor' },
      ],
      {
        env: {
          EXPOSURE_FLUSH_MS: '150',
          RELEASE_MONITOR_MS: '250',
          RATE_LIMIT_EVALUATION_PER_MINUTE: '1000000',
          RATE_LIMIT_MANAGEMENT_PER_MINUTE: '100000',
        },
      },
    )
    for (const key of ['guarded', 'guarded-bad', 'rejected'])
      ok(await asToken('POST', '/api/v1/flags', { key, enabled: true, value: true }))
    ok(
      await asToken('POST', '/api/v1/metrics', {
        key: 'errors',
        name: 'Errors',
        kind: 'proportion',
        event: 'error',
        higher_is_better: false,
      }),
    )
    ok(await asToken('POST', '/api/v1/webhooks', { url: 'https://hooks.example.com/flags', events: ['*'] }))
    ok(
      await as(ADMIN, 'PUT', '/api/v1/project/environments/production/policy', {
        protected: true,
        required_approvals: 1,
        approver_role: 'editor',
      }),
    )
  }, 120_000)
  afterAll(() => p.stop(), 60_000)

  test('the approved start covers the later steps: the plan completes without another review', async () => {
    const id = ok(
      await as(EDITOR, 'POST', plans('guarded'), {
        environment: 'production',
        steps: [
          { percentage: 10, hold_minutes: 0.005 },
          { percentage: 100, hold_minutes: 0.005 },
        ],
        min_units: 5,
      }),
    ).body.release_plan.id
    expect((await definition('guarded')).environments).toBeUndefined()
    const cr = await approvedStart('guarded', id)
    const running = await plan('guarded', id)
    expect(running).toMatchObject({
      current_step: 1,
      percentage: 10,
      approval: { id: cr, approvers: [REVIEWER] },
      pending_change_request: null,
    })
    expect((await definition('guarded')).environments.production.targeting.rollout.percentage).toBe(10)
    const t = { next: 0, inside: 0, outside: 0 }
    await until(
      'guarded completed',
      async () => {
        await drive(p.srv, p.srv.adminToken, 'guarded', t, 60, () => 0)
        return (await plan('guarded', id)).state === 'completed' ? true : undefined
      },
      60_000,
      10,
    )
    expect((await definition('guarded')).environments.production.targeting.rollout.percentage).toBe(100)
    const step = (await asToken('GET', '/api/v1/audit?resource_type=flag&resource_key=guarded')).body.entries[0]
    expect(step).toMatchObject({
      actor: `release-plan:${id}`,
      actor_type: 'release_plan',
      details: { change_request: cr, approvers: [REVIEWER] },
    })
    const hook = (await asToken('GET', '/api/v1/webhooks')).body.webhooks[0]
    const deliveries = (await asToken('GET', `/api/v1/webhooks/${hook.id}/deliveries?limit=200`)).body.deliveries
    const events = deliveries.map((d: { event: string }) => d.event)
    for (const kind of ['release.started', 'release.step', 'release.completed']) expect(events).toContain(kind)
    // the later step needed no review: nothing was bypassed for this flag
    expect(events.filter((e: string) => e === 'change_request.bypassed')).toHaveLength(0)
  }, 90_000)

  test('a regression rolls back as an emergency off: audited and announced', async () => {
    const id = ok(
      await as(EDITOR, 'POST', plans('guarded-bad'), {
        environment: 'production',
        steps: [
          { percentage: 50, hold_minutes: 60 },
          { percentage: 100, hold_minutes: 60 },
        ],
        guardrails: [{ metric: 'errors' }],
      }),
    ).body.release_plan.id
    await approvedStart('guarded-bad', id)
    const t = { next: 0, inside: 0, outside: 0 }
    const rolled = await until(
      'guarded-bad rolled back',
      async () => {
        await drive(p.srv, p.srv.adminToken, 'guarded-bad', t, 100, (inside) => (inside ? 0.6 : 0.2))
        const x = await plan('guarded-bad', id)
        return x.state === 'rolled_back' ? x : undefined
      },
      90_000,
      10,
    )
    expect(rolled).toMatchObject({ reason: 'regression', metric: 'errors' })
    expect((await definition('guarded-bad')).environments.production.targeting.rollout.percentage).toBe(0)
    const last = (await asToken('GET', '/api/v1/audit?resource_type=flag&resource_key=guarded-bad')).body.entries[0]
    expect(last).toMatchObject({ actor: `release-plan:${id}`, details: { emergency: true } })
    const hook = (await asToken('GET', '/api/v1/webhooks')).body.webhooks[0]
    const events = (await asToken('GET', `/api/v1/webhooks/${hook.id}/deliveries?limit=200`)).body.deliveries.map(
      (d: { event: string }) => d.event,
    )
    for (const kind of ['release.started', 'release.rolled_back', 'change_request.bypassed']) expect(events).toContain(kind)
  }, 120_000)

  test('a rejected start sends the plan back to draft; nothing was written', async () => {
    const id = ok(
      await as(EDITOR, 'POST', plans('rejected'), {
        environment: 'production',
        steps: [
          { percentage: 10, hold_minutes: 1 },
          { percentage: 100, hold_minutes: 1 },
        ],
      }),
    ).body.release_plan.id
    const r = await as(EDITOR, 'POST', `${plans('rejected')}/${id}/start`)
    expect(r.status).toBe(202)
    ok(await as(REVIEWER, 'POST', `/api/v1/change-requests/${r.body.change_request.id}/reviews`, { decision: 'reject', revision: 1 }))
    const back = await until(
      'rejected plan back to draft',
      async () => {
        const x = await plan('rejected', id)
        return x.state === 'draft' ? x : undefined
      },
      10_000,
      50,
    )
    expect(back).toMatchObject({ current_step: 0, pending_change_request: null })
    expect((await definition('rejected')).environments).toBeUndefined()
  })
})
