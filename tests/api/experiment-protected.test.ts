// Stopping an experiment in a protected environment (docs/experiments.md §2): 202 with the change request
// created, the experiment keeps running until the request is applied and then stops with its decision; a
// rejected request releases the stop. Rollback serves the control; inconclusive changes no flag.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { api } from '../helpers/server'
import { sapi } from '../helpers/teams'
import { startWithPeople, type People } from '../helpers/people'
import { until } from '../helpers/until'

const ADMIN = 'admin@example.com'
const EDITOR = 'editor@example.com'
const REVIEWER = 'reviewer@example.com'

describe('stop in a protected environment', () => {
  let p: People
  const as = (who: string, method: string, path: string, body?: unknown) =>
    sapi(p.srv, method, path, { cookie: p.cookies[who], project: 'default', body })
  const asToken = (method: string, path: string, body?: unknown) => api(p.srv, method, path, { token: p.srv.adminToken, body })
  const experiment = async (key: string) => (await asToken('GET', `/api/v1/experiments/${key}`)).body.experiment
  const split = [
    { variant: 'a', weight: 50 },
    { variant: 'b', weight: 50 },
  ]

  beforeAll(async () => {
    p = await startWithPeople([
      { email: ADMIN, role: 'admin' },
      { email: EDITOR, role: 'editor' },
      { email: REVIEWER, role: 'editor' },
    ])
    const ok = (r: { status: number; text: string }) => expect(r.status, r.text).toBeLessThan(300)
    for (const key of ['f1', 'f2', 'f3']) {
      ok(
        await asToken('POST', '/api/v1/flags', {
          key,
          enabled: true,
          variants: { a: 'A', b: 'B' },
          default_variant: 'a',
          targeting: { rollout: { attribute: 'user_id', distribution: split } },
        }),
      )
    }
    ok(await asToken('POST', '/api/v1/metrics', { key: 'm', name: 'M', kind: 'proportion', event: 'e' }))
    for (const [key, flag] of [
      ['x1', 'f1'],
      ['x2', 'f2'],
      ['x3', 'f3'],
    ]) {
      ok(await asToken('POST', '/api/v1/experiments', { key, name: key, flag, environment: 'production', goal_metrics: ['m'] }))
      ok(await asToken('POST', `/api/v1/experiments/${key}/start`))
    }
    ok(
      await as(ADMIN, 'PUT', '/api/v1/project/environments/production/policy', {
        protected: true,
        required_approvals: 1,
        approver_role: 'editor',
      }),
    )
  }, 120_000)
  afterAll(() => p.stop(), 60_000)

  test('ship answers 202 with the change request; the experiment stops when it is applied', async () => {
    const r = await as(EDITOR, 'POST', '/api/v1/experiments/x1/stop', { decision: 'ship', variant: 'b' })
    expect(r.status).toBe(202)
    const id: string = r.body.change_request.id
    expect(typeof id).toBe('string')
    expect(r.body.change_request.state).toBe('open')
    expect(r.body.experiment).toMatchObject({ state: 'running', pending_change_request: id })
    // nothing changed yet; a second stop waits for the first
    expect((await asToken('GET', '/api/v1/flags/f1/definition')).body.flag.environments).toBeUndefined()
    expect((await as(EDITOR, 'POST', '/api/v1/experiments/x1/stop', { decision: 'inconclusive' })).status).toBe(409)
    const got = await as(REVIEWER, 'GET', `/api/v1/change-requests/${id}`)
    expect(got.status, got.text).toBe(200)
    const cr = got.body.change_request
    expect(cr.items[0]).toMatchObject({ resource_type: 'flag', key: 'f1', action: 'set_override', environment: 'production' })
    expect((await as(REVIEWER, 'POST', `/api/v1/change-requests/${cr.id}/reviews`, { decision: 'approve', revision: 1 })).status).toBe(200)
    expect((await as(EDITOR, 'POST', `/api/v1/change-requests/${cr.id}/apply`, { revision: 1 })).status).toBe(200)
    const stopped = await until(
      'x1 stopped',
      async () => {
        const x = await experiment('x1')
        return x.state === 'stopped' ? x : undefined
      },
      10_000,
      50,
    )
    expect(stopped).toMatchObject({ phase: 1, decision: { decision: 'ship', variant: 'b' }, pending_change_request: null })
    expect((await asToken('GET', '/api/v1/flags/f1/definition')).body.flag.environments.production.targeting.rollout.distribution).toEqual([
      { variant: 'b', weight: 100 },
    ])
  })

  test('a rejected request releases the stop: the experiment keeps running', async () => {
    const r = await as(EDITOR, 'POST', '/api/v1/experiments/x2/stop', { decision: 'rollback' })
    expect(r.status).toBe(202)
    const id = r.body.change_request.id
    expect((await as(REVIEWER, 'POST', `/api/v1/change-requests/${id}/reviews`, { decision: 'reject', revision: 1 })).status).toBe(200)
    const x = await until(
      'x2 released',
      async () => {
        const e = await experiment('x2')
        return e.pending_change_request === null ? e : undefined
      },
      10_000,
      50,
    )
    expect(x).toMatchObject({ state: 'running', decision: null })
  })

  test('inconclusive changes no flag, so it needs no review', async () => {
    const r = await as(EDITOR, 'POST', '/api/v1/experiments/x3/stop', { decision: 'inconclusive' })
    expect(r.status).toBe(200)
    expect(r.body.experiment).toMatchObject({ state: 'stopped', decision: { decision: 'inconclusive' } })
    expect((await asToken('GET', '/api/v1/flags/f3/definition')).body.flag.environments).toBeUndefined()
  })
})
