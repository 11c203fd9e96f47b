// Own rules per environment as code (docs/as-code.md): the document carries environments.<env>.targeting;
// export is byte stable, plan shows the difference inside the environment, apply writes it (a change to that
// environment only), compare shows the targeting difference, promote copies the whole override. Both stores.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { api, startServer, type TestServer } from '../helpers/server'
import { sapi, setupOwner } from '../helpers/teams'

let srv: TestServer
/** lowering protection needs a project admin's session (docs/change-requests.md) */
let owner: string
const admin = (method: string, path: string, body?: unknown) => api(srv, method, path, { token: srv.adminToken, body })
const send = (path: string, text: string) =>
  api(srv, 'POST', path, { token: srv.adminToken, rawBody: text, headers: { 'content-type': 'application/json' } })
const q = (ctx: unknown) => `?context=${encodeURIComponent(JSON.stringify(ctx))}`
const OWN = {
  rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'staff' }], value: true }],
  rollout: { percentage: 10, attribute: 'user_id' },
}

beforeAll(async () => {
  srv = await startServer()
  owner = await setupOwner(srv)
  expect(
    (
      await admin('POST', '/api/v1/flags', {
        key: 'search',
        enabled: true,
        value: false,
        environments: { production: { enabled: true, targeting: OWN }, staging: { enabled: false } },
      })
    ).status,
  ).toBe(201)
}, 60_000)
afterAll(() => srv?.stop())

test('the JSON Schema describes own rules, with no OpenAPI-only keyword', async () => {
  const text = await (await fetch(`${srv.url}/schemas/flagship-v1.json`)).text()
  expect(text).not.toContain('"nullable"')
  const schema = JSON.parse(text)
  const override = schema.properties.flags.items.properties.environments.anyOf.find(
    (s: { type?: string }) => s.type === 'object',
  ).additionalProperties
  expect(override.properties.targeting.anyOf.map((s: { title?: string; type?: string }) => s.title ?? s.type)).toEqual([
    'Targeting',
    'null',
  ])
  expect(override.additionalProperties).toBe(false)
})

test('export carries them and is byte stable; importing it back changes nothing', async () => {
  const a = await admin('GET', '/api/v1/export?format=json')
  const b = await admin('GET', '/api/v1/export?format=json')
  expect(a.text).toBe(b.text)
  const doc = JSON.parse(a.text)
  expect(doc.flags[0].environments.production).toEqual({ enabled: true, targeting: OWN })
  const yaml = await admin('GET', '/api/v1/export?format=yaml')
  expect(yaml.text).toContain('targeting:')
  const plan = await send('/api/v1/import?mode=plan', a.text)
  expect(plan.body.summary).toEqual({ create: 0, update: 0, delete: 0, unchanged: 1 })
})

test("plan shows a change inside production's own rules; apply writes it", async () => {
  const doc = JSON.parse((await admin('GET', '/api/v1/export?format=json')).text)
  doc.flags[0].environments.production.targeting.rollout.percentage = 100
  doc.flags[0].environments.staging.targeting = { rules: [{ conditions: [], value: true }] }
  const plan = await send('/api/v1/import?mode=plan', JSON.stringify(doc))
  expect(plan.status).toBe(200)
  expect(plan.body.changes[0].diff).toEqual([
    { op: 'add', path: '/environments/staging/targeting', value: { rules: [{ conditions: [], value: true }] } },
    { op: 'replace', path: '/environments/production/targeting/rollout/percentage', value: 100 },
  ])
  // a bad own rule in a document: the error names its place
  const bad = structuredClone(doc)
  bad.flags[0].environments.production.targeting.rules[0].conditions[0].operator = 'is'
  const refused = await send('/api/v1/import?mode=plan', JSON.stringify(bad))
  expect(JSON.stringify(refused.body)).toContain('environments.production.targeting.rules[0].conditions[0].operator')
  expect((await send('/api/v1/import?mode=apply', JSON.stringify(doc))).status).toBe(200)
  expect((await admin('GET', `/api/v1/flags/search${q({ user_id: 'u1', plan: 'staff', environment: 'production' })}`)).body).toEqual({
    value: true,
    type: 'boolean',
    reason: 'targeting',
  })
  expect((await admin('GET', `/api/v1/flags/search${q({ user_id: 'u1', plan: 'staff' })}`)).body).toEqual({
    value: false,
    type: 'boolean',
    reason: 'default',
  })
  expect((await admin('GET', `/api/v1/flags/search${q({ user_id: 'u1', environment: 'staging' })}`)).body).toEqual({
    value: false,
    type: 'boolean',
    reason: 'disabled',
  })
})

test('compare shows the targeting difference per environment; promote copies the whole override, targeting included', async () => {
  const cmp = await admin('GET', '/api/v1/environments/compare?a=production&b=staging')
  const row = cmp.body.flags.find((f: { key: string }) => f.key === 'search')
  expect(row.status).toBe('different')
  expect(row.diff.map((d: { path: string }) => d.path)).toContain('/targeting/rollout')
  const promoted = await admin('POST', '/api/v1/promote', { from: 'production', to: 'development', flags: ['search'] })
  expect(promoted.status).toBe(200)
  const stored = (await admin('GET', '/api/v1/flags/search/definition')).body.flag
  expect(stored.environments.development).toEqual(stored.environments.production)
  expect((await admin('GET', `/api/v1/flags/search${q({ user_id: 'u1', environment: 'development' })}`)).body.reason).toBe('rollout')
})

test('a promotion into staging only is allowed for a writer in staging only', async () => {
  const token = (
    await admin('POST', '/api/v1/tokens', {
      name: 'staging-ci',
      project_id: 'default',
      permissions: ['read:flags', 'write:flags'],
      environments: ['staging'],
    })
  ).body.token
  const res = await api(srv, 'POST', '/api/v1/promote', { token, body: { from: 'production', to: 'staging', flags: ['search'] } })
  expect(res.status).toBe(200)
  expect((await admin('GET', '/api/v1/flags/search/definition')).body.flag.environments.staging.targeting).toEqual(
    (await admin('GET', '/api/v1/flags/search/definition')).body.flag.environments.production.targeting,
  )
  expect(
    (await api(srv, 'POST', '/api/v1/promote', { token, body: { from: 'staging', to: 'production', flags: ['search'] } })).status,
  ).toBe(403)
})

const STAGING_ONLY_IMPORT =
  "an import touching staging's overrides only is a change to staging: " +
  'a writer in staging only applies it, not one touching production'
test(STAGING_ONLY_IMPORT, async () => {
  const token = (
    await admin('POST', '/api/v1/tokens', {
      name: 'staging-import',
      project_id: 'default',
      permissions: ['read:flags', 'write:flags'],
      environments: ['staging'],
    })
  ).body.token
  const as = (path: string, text: string) =>
    api(srv, 'POST', path, { token, rawBody: text, headers: { 'content-type': 'application/json' } })
  const doc = JSON.parse((await admin('GET', '/api/v1/export?format=json')).text)
  delete doc.configs // a document with configs needs write:configs too
  doc.flags[0].environments.staging = {
    enabled: true,
    targeting: { rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'qa' }], value: true }] },
  }
  const plan = await as('/api/v1/import?mode=plan', JSON.stringify(doc))
  expect(plan.status).toBe(200)
  expect(plan.body.summary.update).toBe(1)
  const applied = await as('/api/v1/import?mode=apply', JSON.stringify(doc))
  expect(applied.status).toBe(200)
  expect((await admin('GET', `/api/v1/flags/search${q({ plan: 'qa', environment: 'staging' })}`)).body).toEqual({
    value: true,
    type: 'boolean',
    reason: 'targeting',
  })
  // an If-Match of another plan is refused
  doc.flags[0].environments.staging.enabled = false
  expect(
    (
      await api(srv, 'POST', '/api/v1/import?mode=apply', {
        token,
        rawBody: JSON.stringify(doc),
        headers: { 'content-type': 'application/json', 'if-match': '"0123"' },
      })
    ).status,
  ).toBe(409)
  // touching production, or the flag's own fields: refused, nothing changed
  const before = (await admin('GET', '/api/v1/flags/search/definition')).body.flag
  const prod = structuredClone(doc)
  prod.flags[0].environments.production.enabled = false
  const refused = await as('/api/v1/import?mode=apply', JSON.stringify(prod))
  expect(refused.status).toBe(403)
  expect(refused.body.code).toBe('ENVIRONMENT_FORBIDDEN')
  const top = structuredClone(doc)
  top.flags[0].value = true
  expect((await as('/api/v1/import?mode=apply', JSON.stringify(top))).status).toBe(403)
  expect((await admin('GET', '/api/v1/flags/search/definition')).body.flag).toEqual(before)
})

const STAGING_ONLY_UNPROTECTED =
  'a protected production is untouched by an import or a promotion that changes staging only; ' + 'one changing production needs review'
test(STAGING_ONLY_UNPROTECTED, async () => {
  const policy = (p: boolean) =>
    sapi(srv, 'PUT', '/api/v1/project/environments/production/policy', {
      cookie: owner,
      project: 'default',
      body: { protected: p, required_approvals: 1, approver_role: 'editor' },
    })
  expect((await policy(true)).status).toBe(200)
  try {
    const doc = JSON.parse((await admin('GET', '/api/v1/export?format=json')).text)
    doc.flags[0].environments.staging = { enabled: true, targeting: { rules: [] } }
    expect((await send('/api/v1/import?mode=apply', JSON.stringify(doc))).status).toBe(200)
    expect((await admin('POST', '/api/v1/promote', { from: 'development', to: 'staging', flags: ['search'] })).status).toBe(200)
    // (not a switch turned off: that alone would pass as an emergency off)
    doc.flags[0].environments.production.targeting = { rules: [] }
    const refused = await send('/api/v1/import?mode=apply', JSON.stringify(doc))
    expect(refused.status).toBe(409)
    expect(refused.body.code).toBe('CHANGE_REQUEST_REQUIRED')
    expect((await admin('PUT', '/api/v1/flags/search/environments/development', { enabled: false, targeting: { rules: [] } })).status).toBe(
      200,
    )
    expect((await admin('POST', '/api/v1/promote', { from: 'development', to: 'production', flags: ['search'] })).body.code).toBe(
      'CHANGE_REQUEST_REQUIRED',
    )
  } finally {
    expect((await policy(false)).status).toBe(200)
  }
})
