// Own rules per environment over HTTP (docs/flag-switches.md, docs/behaviour.md §4): the override route takes
// `targeting` (null removes it), validation paths, every evaluation surface, which environments a change
// affects (a staging-only writer, a protected production), history and rollback, the webhook's environment.
// Runs on both stores (TEST_STORE=postgres).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { api, startServer, type TestServer } from '../helpers/server'
import { openSse } from '../helpers/sse'
import { sapi, setupOwner } from '../helpers/teams'

let srv: TestServer
/** lowering protection needs a project admin's session (docs/change-requests.md) */
let owner: string
const setPolicy = (body: unknown) =>
  sapi(srv, 'PUT', '/api/v1/project/environments/production/policy', { cookie: owner, project: 'default', body })
const hooks: { event: string; environment: string; resource: string }[] = []
let receiver: ReturnType<typeof Bun.serve>
const admin = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  api(srv, method, path, { token: srv.adminToken, body, headers })
const q = (ctx: unknown) => `?context=${encodeURIComponent(JSON.stringify(ctx))}`
const STAFF_RULES = { rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'staff' }], value: 'staff' }] }

beforeAll(async () => {
  receiver = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: async (req) => {
      hooks.push(await req.json())
      return new Response('ok')
    },
  })
  srv = await startServer()
  owner = await setupOwner(srv)
  expect((await admin('POST', '/api/v1/webhooks', { url: `http://127.0.0.1:${receiver.port}/h`, events: ['*'] })).status).toBe(201)
  expect(
    (
      await admin('POST', '/api/v1/flags', {
        key: 'checkout',
        enabled: true,
        value: 'old',
        targeting: { rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'pro' }], value: 'pro' }] },
        environments: { staging: { enabled: true }, production: { enabled: true } },
      })
    ).status,
  ).toBe(201)
}, 60_000)
afterAll(async () => {
  await srv?.stop()
  receiver?.stop(true)
})

describe('the override route', () => {
  test("takes targeting; every surface evaluates staging with it, the others with the flag's", async () => {
    const put = await admin('PUT', '/api/v1/flags/checkout/environments/staging', { enabled: true, value: 'stage', targeting: STAFF_RULES })
    expect(put.status).toBe(200)
    expect(put.body.override).toEqual({ enabled: true, value: 'stage', targeting: STAFF_RULES })
    const staff = { user_id: 'u1', plan: 'staff', environment: 'staging' }
    expect((await admin('GET', `/api/v1/flags/checkout${q(staff)}`)).body).toEqual({ value: 'staff', type: 'string', reason: 'targeting' })
    expect((await admin('GET', `/api/v1/flags/checkout${q({ plan: 'pro', environment: 'staging' })}`)).body).toEqual({
      value: 'stage',
      type: 'string',
      reason: 'environment_override',
    })
    expect((await admin('GET', `/api/v1/flags/checkout${q({ plan: 'pro', environment: 'production' })}`)).body).toEqual({
      value: 'pro',
      type: 'string',
      reason: 'targeting',
    })
    expect((await admin('GET', `/api/v1/flags/checkout${q({ plan: 'staff', environment: 'production' })}`)).body.reason).toBe(
      'environment_override',
    )
    const bulk = await admin('POST', '/api/v1/evaluate', { context: staff, flags: ['checkout'] })
    expect(bulk.body.flags.checkout).toBe('staff')
    const ofrep = await admin('POST', '/ofrep/v1/evaluate/flags/checkout', {
      context: { targetingKey: 'u1', plan: 'staff', environment: 'staging' },
    })
    expect(ofrep.body).toMatchObject({ key: 'checkout', value: 'staff', reason: 'TARGETING_MATCH', variant: 'rule-1' })
    const ofrepBulk = await admin('POST', '/ofrep/v1/evaluate/flags', {
      context: { targetingKey: 'u1', plan: 'staff', environment: 'staging' },
    })
    expect(ofrepBulk.body.flags.find((f: { key: string }) => f.key === 'checkout')).toMatchObject({
      value: 'staff',
      reason: 'TARGETING_MATCH',
    })
    const explain = await admin('POST', '/api/v1/flags/checkout/explain', { context: staff })
    expect(explain.body.trace[0]).toMatchObject({ step: 'environment_override', rules: "staging's own rules" })
    expect(explain.body.result).toEqual({ value: 'staff', type: 'string', reason: 'targeting' })
    const defs = await admin('GET', '/api/v1/definitions?environment=staging')
    expect(defs.body.flags[0].environments).toEqual({ staging: { enabled: true, value: 'stage', targeting: STAFF_RULES } })
  })

  test('bad own rules: 400 with the path inside the environment, nothing changed', async () => {
    const before = (await admin('GET', '/api/v1/flags/checkout/definition')).body.flag
    const res = await admin('PUT', '/api/v1/flags/checkout/environments/production', {
      enabled: true,
      targeting: {
        rules: [{ conditions: [{ property: 'n', operator: 'greater_than', value: 'x' }], value: 'y' }],
        rollout: { percentage: 140, attribute: 'user_id' },
      },
    })
    expect(res.status).toBe(400)
    const paths = res.body.details.issues.map((i: { path: string }) => i.path)
    expect(paths).toContain('environments.production.targeting.rules[0].conditions[0].value')
    expect(paths).toContain('environments.production.targeting.rollout.percentage')
    const shape = await admin('PUT', '/api/v1/flags/checkout/environments/production', { enabled: true, targeting: { rules: 'all' } })
    expect(shape.status).toBe(400)
    expect((await admin('GET', '/api/v1/flags/checkout/definition')).body.flag).toEqual(before)
  })

  test('targeting: null removes the own rules; history keeps them and a rollback brings them back', async () => {
    const res = await admin('PUT', '/api/v1/flags/checkout/environments/staging', { enabled: true, value: 'stage', targeting: null })
    expect(res.status).toBe(200)
    expect(res.body.override).toEqual({ enabled: true, value: 'stage' })
    expect((await admin('GET', `/api/v1/flags/checkout${q({ plan: 'pro', environment: 'staging' })}`)).body.value).toBe('pro')
    const history = (await admin('GET', '/api/v1/flags/checkout/history')).body.versions
    const withRules = history.find(
      (v: { flag: { environments?: Record<string, { targeting?: unknown }> } }) => v.flag.environments?.staging?.targeting,
    )
    expect(withRules.flag.environments.staging.targeting).toEqual(STAFF_RULES)
    expect((await admin('POST', '/api/v1/flags/checkout/rollback', { version: withRules.version })).status).toBe(200)
    expect((await admin('GET', `/api/v1/flags/checkout${q({ plan: 'staff', environment: 'staging' })}`)).body.value).toBe('staff')
  })
})

describe('which environments a change affects', () => {
  let stagingWriter: string
  beforeAll(async () => {
    const res = await admin('POST', '/api/v1/tokens', {
      name: 'staging-ci',
      project_id: 'default',
      permissions: ['read:flags', 'write:flags'],
      environments: ['staging'],
    })
    expect(res.status).toBe(201)
    stagingWriter = res.body.token
  })
  const asWriter = (method: string, path: string, body?: unknown) => api(srv, method, path, { token: stagingWriter, body })

  test("a writer in staging only sets staging's own rules (override route and whole-flag PUT), is refused production's", async () => {
    expect((await asWriter('PUT', '/api/v1/flags/checkout/environments/staging', { enabled: true, targeting: { rules: [] } })).status).toBe(
      200,
    )
    const refused = await asWriter('PUT', '/api/v1/flags/checkout/environments/production', { enabled: true, targeting: STAFF_RULES })
    expect(refused.status).toBe(403)
    const stored = (await admin('GET', '/api/v1/flags/checkout/definition')).body.flag
    // the whole flag, with only staging's override changed: a change to staging
    const environments = { ...stored.environments, staging: { enabled: true, targeting: STAFF_RULES } }
    expect((await asWriter('PUT', '/api/v1/flags/checkout', { environments })).status).toBe(200)
    expect((await admin('GET', '/api/v1/flags/checkout/definition')).body.flag.environments.staging.targeting).toEqual(STAFF_RULES)
    // the same with production's touched too, or a top-level field: every environment
    const both = { ...environments, production: { enabled: true, targeting: STAFF_RULES } }
    expect((await asWriter('PUT', '/api/v1/flags/checkout', { environments: both })).status).toBe(403)
    expect((await asWriter('PUT', '/api/v1/flags/checkout', { environments, value: 'new' })).status).toBe(403)
    expect((await admin('GET', '/api/v1/flags/checkout/definition')).body.flag.environments.production).toEqual({ enabled: true })
  })

  test("a protected production is untouched by a staging-only change; production's own rules need review", async () => {
    expect((await setPolicy({ protected: true, required_approvals: 1, approver_role: 'editor' })).status).toBe(200)
    try {
      expect((await admin('PUT', '/api/v1/flags/checkout/environments/staging', { enabled: true, targeting: { rules: [] } })).status).toBe(
        200,
      )
      const stored = (await admin('GET', '/api/v1/flags/checkout/definition')).body.flag
      expect(
        (await admin('PUT', '/api/v1/flags/checkout', { environments: { ...stored.environments, staging: { enabled: false } } })).status,
      ).toBe(200)
      const blocked = await admin('PUT', '/api/v1/flags/checkout/environments/production', { enabled: true, targeting: STAFF_RULES })
      expect(blocked.status).toBe(409)
      expect(blocked.body.code).toBe('CHANGE_REQUEST_REQUIRED')
      const blockedWhole = await admin('PUT', '/api/v1/flags/checkout', {
        environments: { ...stored.environments, production: { enabled: true, targeting: STAFF_RULES } },
      })
      expect(blockedWhole.body.code).toBe('CHANGE_REQUEST_REQUIRED')
    } finally {
      expect((await setPolicy({ protected: false, required_approvals: 1, approver_role: 'editor' })).status).toBe(200)
    }
  })

  test('webhooks name the one environment a change touched', async () => {
    const stored = (await admin('GET', '/api/v1/flags/checkout/definition')).body.flag
    // every change so far has been delivered (the receiver answers at once) before these two are made
    const settled = Date.now() + 20_000
    while (
      Date.now() < settled &&
      (await admin('GET', '/api/v1/audit?resource_type=flag&resource_key=checkout')).body.entries.length >
        hooks.filter((h) => h.resource === 'checkout').length
    )
      await Bun.sleep(100)
    const seen = hooks.length
    expect(
      (
        await admin('PUT', '/api/v1/flags/checkout', {
          environments: { ...stored.environments, production: { enabled: true, targeting: STAFF_RULES } },
        })
      ).status,
    ).toBe(200)
    expect((await admin('PUT', '/api/v1/flags/checkout', { value: 'older' })).status).toBe(200)
    const deadline = Date.now() + 20_000
    const mine = () => hooks.slice(seen).filter((h) => h.resource === 'checkout')
    while (Date.now() < deadline && mine().length < 2) await Bun.sleep(100)
    expect(mine().map((h) => [h.event, h.resource, h.environment])).toEqual([
      ['flag.updated', 'checkout', 'production'],
      ['flag.updated', 'checkout', ''],
    ])
  })
})

describe('schedules and change requests', () => {
  test('a scheduled change gives production its own rules when due', async () => {
    const at = new Date(Date.now() + 1500).toISOString()
    const res = await admin('POST', '/api/v1/flags/checkout/schedules', {
      at,
      change: {
        environment: 'production',
        override: {
          enabled: true,
          value: 'sched',
          targeting: { rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'night' }], value: 'night' }] },
        },
      },
    })
    expect(res.status).toBe(201)
    const deadline = Date.now() + 30_000
    let got: Record<string, unknown> = {}
    while (Date.now() < deadline && got.value !== 'night') {
      await Bun.sleep(250)
      got = (await admin('GET', `/api/v1/flags/checkout${q({ plan: 'night', environment: 'production' })}`)).body
    }
    expect(got).toEqual({ value: 'night', type: 'string', reason: 'targeting' })
    expect((await admin('GET', `/api/v1/flags/checkout${q({ plan: 'night', environment: 'staging' })}`)).body.value).not.toBe('night')
  })

  test("a change request's item touching production's override only affects production", async () => {
    const stored = (await admin('GET', '/api/v1/flags/checkout/definition')).body.flag
    const items = [
      {
        resource_type: 'flag',
        key: 'checkout',
        action: 'set_override',
        environment: 'production',
        body: { enabled: true, targeting: STAFF_RULES },
      },
      {
        resource_type: 'flag',
        key: 'checkout',
        action: 'update',
        body: { environments: { ...stored.environments, production: { enabled: false, targeting: STAFF_RULES } } },
      },
    ]
    const policy = (p: boolean) => setPolicy({ protected: p, required_approvals: 1, approver_role: 'editor' })
    expect((await policy(true)).status).toBe(200)
    try {
      for (const item of items) {
        const res = await admin('POST', '/api/v1/change-requests', { title: 'production rules', items: [item] })
        expect(res.status).toBe(201)
        expect(res.body.change_request.items[0].after.environments.production.targeting).toEqual(STAFF_RULES)
        // the protected environments it affects
        expect(res.body.change_request.environments).toEqual(['production'])
      }
      const staging = {
        resource_type: 'flag',
        key: 'checkout',
        action: 'update',
        body: { environments: { ...stored.environments, staging: { enabled: true, targeting: STAFF_RULES } } },
      }
      expect(
        (await admin('POST', '/api/v1/change-requests', { title: 'staging rules', items: [staging] })).body.change_request.environments,
      ).toEqual([])
    } finally {
      expect((await policy(false)).status).toBe(200)
    }
  })
})

test("a writer in staging only proposes an update item touching staging's override only, not production's", async () => {
  const token = (
    await admin('POST', '/api/v1/tokens', {
      name: 'staging-proposer',
      project_id: 'default',
      permissions: ['read:flags', 'write:flags'],
      environments: ['staging'],
    })
  ).body.token
  const stored = (await admin('GET', '/api/v1/flags/checkout/definition')).body.flag
  const item = (environments: unknown) => ({ resource_type: 'flag', key: 'checkout', action: 'update', body: { environments } })
  const staging = await api(srv, 'POST', '/api/v1/change-requests', {
    token,
    body: { title: 'staging rules', items: [item({ ...stored.environments, staging: { enabled: true, targeting: STAFF_RULES } })] },
  })
  expect(staging.status).toBe(201)
  const production = await api(srv, 'POST', '/api/v1/change-requests', {
    token,
    body: { title: 'production rules', items: [item({ ...stored.environments, production: { enabled: true, targeting: { rules: [] } } })] },
  })
  expect(production.status).toBe(403)
  expect(production.body.code).toBe('ENVIRONMENT_FORBIDDEN')
})

test("usage: in an environment with own rules, rule-<n> counts those rules; elsewhere the flag's", async () => {
  await admin('POST', '/api/v1/flags', {
    key: 'usage-own',
    enabled: true,
    value: 1,
    targeting: { rules: [{ conditions: [], value: 2 }] },
    environments: {
      production: {
        enabled: true,
        targeting: {
          rules: [
            { conditions: [{ property: 'plan', operator: 'equals', value: 'a' }], value: 3 },
            { conditions: [], value: 4 },
          ],
        },
      },
    },
  })
  const now = new Date().toISOString()
  const row = (environment: string, variant: string) => ({ key: 'usage-own', environment, variant, count: 1, from: now, to: now })
  expect((await admin('POST', '/api/v1/usage', { counts: [row('production', 'rule-2')] })).status).toBe(200)
  const refused = await admin('POST', '/api/v1/usage', { counts: [row('staging', 'rule-2')] })
  expect(refused.status).toBe(400)
  expect(refused.body.details.issues[0].path).toBe('counts[0].variant')
  expect((await admin('POST', '/api/v1/usage', { counts: [row('staging', 'rule-1')] })).status).toBe(200)
  // the server's own counts name the same branches
  const answered = await admin('GET', `/api/v1/flags/usage-own${q({ environment: 'production' })}`)
  expect(answered.body).toEqual({ value: 4, type: 'number', reason: 'targeting' })
  const ofrep = await admin('POST', '/ofrep/v1/evaluate/flags/usage-own', { context: { environment: 'production' } })
  expect(ofrep.body.variant).toBe('rule-2')
})

test('the change stream names the environment whose own rules changed, through the override route and a whole-flag PUT', async () => {
  const s = await openSse(`${srv.url}/api/v1/stream`, { authorization: `Bearer ${srv.adminToken}` })
  try {
    expect((await s.next()).event).toBe('ready')
    expect((await admin('PUT', '/api/v1/flags/checkout/environments/development', { enabled: true, targeting: STAFF_RULES })).status).toBe(
      200,
    )
    const stored = (await admin('GET', '/api/v1/flags/checkout/definition')).body.flag
    expect(
      (await admin('PUT', '/api/v1/flags/checkout', { environments: { ...stored.environments, development: { enabled: true } } })).status,
    ).toBe(200)
    const changes = [await s.next((e) => e.event === 'change'), await s.next((e) => e.event === 'change')]
    expect(changes.map((e) => [e.data.key, e.data.action, e.data.environment])).toEqual([
      ['checkout', 'update', 'development'],
      ['checkout', 'update', 'development'],
    ])
  } finally {
    s.close()
  }
})
