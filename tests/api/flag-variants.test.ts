// Variants, weighted splits and prerequisites (docs/lifecycle.md §1-2) through HTTP, on every evaluation
// surface: native single and bulk, OFREP, definitions.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { api, startServer, type TestServer } from '../helpers/server'

let srv: TestServer
let admin: string
beforeAll(async () => {
  srv = await startServer()
  admin = srv.adminToken
})
afterAll(() => srv.stop())

const create = (body: unknown) => api(srv, 'POST', '/api/v1/flags', { token: admin, body })
const update = (key: string, body: unknown) => api(srv, 'PUT', `/api/v1/flags/${key}`, { token: admin, body })
const evaluate = (key: string, context: unknown = {}) =>
  api(srv, 'GET', `/api/v1/flags/${key}?context=${encodeURIComponent(JSON.stringify(context))}`, { token: admin })
const ofrep = (key: string, context: unknown = {}) =>
  api(srv, 'POST', `/ofrep/v1/evaluate/flags/${key}`, { token: admin, body: { context } })
const issuesOf = (res: { body: any }) => JSON.stringify(res.body.details?.issues)

const COLOURS = {
  key: 'button-colour',
  enabled: true,
  variants: { blue: '#00f', green: '#0f0', red: '#f00', grey: '#888' },
  default_variant: 'blue',
  off_variant: 'grey',
  targeting: {
    overrides: { 'u-vip': 'red' },
    rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'pro' }], variant: 'green' }],
    rollout: {
      attribute: 'user_id',
      distribution: [
        { variant: 'blue', weight: 50 },
        { variant: 'green', weight: 25 },
        { variant: 'red', weight: 25 },
      ],
    },
  },
}

describe('variants', () => {
  test('a flag with variants: value mirrors default_variant; every branch names its variant', async () => {
    const res = await create(COLOURS)
    expect(res.status).toBe(201)
    expect(res.body.flag).toMatchObject({ value: '#00f', default_variant: 'blue', off_variant: 'grey' })
    expect((await evaluate('button-colour', { user_id: 'u-vip' })).body).toEqual({
      value: '#f00',
      type: 'string',
      reason: 'override',
      variant: 'red',
    })
    expect((await evaluate('button-colour', { user_id: 'u-1', plan: 'pro' })).body).toEqual({
      value: '#0f0',
      type: 'string',
      reason: 'targeting',
      variant: 'green',
    })
    const split = (await evaluate('button-colour', { user_id: 'u-1' })).body
    expect(split.reason).toBe('rollout')
    expect(['blue', 'green', 'red']).toContain(split.variant)
    // Without the attribute: outside the split, the off variant.
    expect((await evaluate('button-colour', {})).body).toEqual({ value: '#888', type: 'string', reason: 'rollout', variant: 'grey' })
    await update('button-colour', { enabled: false })
    expect((await evaluate('button-colour', { user_id: 'u-vip' })).body).toEqual({
      value: '#888',
      type: 'string',
      reason: 'disabled',
      variant: 'grey',
    })
    await update('button-colour', { enabled: true })
  })

  test('flags without variants answer exactly { value, type, reason }; bulk names variants beside flags', async () => {
    await create({ key: 'plain', enabled: true, value: 7 })
    const plain = await evaluate('plain')
    expect(Object.keys(plain.body).sort()).toEqual(['reason', 'type', 'value'])
    const only = await api(srv, 'POST', '/api/v1/evaluate', { token: admin, body: { flags: ['plain'], context: {} } })
    expect(only.body).toEqual({ flags: { plain: 7 }, configs: {}, missing: { flags: [], configs: [] } })
    const bulk = await api(srv, 'POST', '/api/v1/evaluate', {
      token: admin,
      body: { flags: ['plain', 'button-colour'], context: { user_id: 'u-vip' } },
    })
    expect(bulk.body.flags).toEqual({ plain: 7, 'button-colour': '#f00' })
    expect(bulk.body.variants).toEqual({ 'button-colour': 'red' })
  })

  test('OFREP and definitions name the variant', async () => {
    const one = await ofrep('button-colour', { targetingKey: 'u-1', plan: 'pro' })
    expect(one.body).toMatchObject({ key: 'button-colour', value: '#0f0', reason: 'TARGETING_MATCH', variant: 'green' })
    const bulk = await api(srv, 'POST', '/ofrep/v1/evaluate/flags', { token: admin, body: { context: { targetingKey: 'u-vip' } } })
    expect(bulk.body.flags.find((f: any) => f.key === 'button-colour')).toMatchObject({ value: '#f00', variant: 'red' })
    const defs = await api(srv, 'GET', '/api/v1/definitions', { token: admin })
    expect(defs.body.flags.find((f: any) => f.key === 'button-colour')).toMatchObject({
      variants: COLOURS.variants,
      default_variant: 'blue',
    })
  })

  test('the split is sticky and follows the cumulative weights', async () => {
    const seen: Record<string, number> = { blue: 0, green: 0, red: 0 }
    for (let i = 0; i < 400; i++) {
      const a = (await evaluate('button-colour', { user_id: `user-${i}` })).body
      seen[a.variant]!++
      expect((await evaluate('button-colour', { user_id: `user-${i}` })).body.variant).toBe(a.variant)
    }
    // 50 / 25 / 25 over 400 users, within a generous margin.
    expect(seen.blue).toBeGreaterThan(150)
    expect(seen.green).toBeGreaterThan(60)
    expect(seen.red).toBeGreaterThan(60)
  })

  test('references to unknown variants, removing a referenced variant, bad weights and a stray value: 400, nothing stored', async () => {
    const unknown = await create({ key: 'v-bad', variants: { a: 1, b: 2 }, default_variant: 'c' })
    expect(unknown.status).toBe(400)
    expect(issuesOf(unknown)).toContain('default_variant')
    const weights = await create({
      key: 'v-bad',
      variants: { a: 1, b: 2 },
      default_variant: 'a',
      targeting: {
        rollout: {
          attribute: 'user_id',
          distribution: [
            { variant: 'a', weight: 60 },
            { variant: 'b', weight: 30 },
          ],
        },
      },
    })
    expect(weights.status).toBe(400)
    expect(issuesOf(weights)).toContain('sum to 100')
    const mixed = await create({ key: 'v-bad', variants: { a: 1, b: 'two' }, default_variant: 'a' })
    expect(mixed.status).toBe(400)
    const stray = await create({ key: 'v-bad', variants: { a: 1, b: 2 }, default_variant: 'a', value: 5 })
    expect(stray.status).toBe(400)
    expect(issuesOf(stray)).toContain('default_variant')
    expect((await evaluate('v-bad')).status).toBe(404)
    // Dropping `red` while an override and the split use it: refused, naming both places.
    const drop = await update('button-colour', { variants: { blue: '#00f', green: '#0f0', grey: '#888' } })
    expect(drop.status).toBe(400)
    expect(issuesOf(drop)).toContain('targeting.overrides.u-vip')
    expect(issuesOf(drop)).toContain('targeting.rollout.distribution[2].variant')
    expect((await evaluate('button-colour', { user_id: 'u-vip' })).body.variant).toBe('red')
  })

  test('an environment override may serve a variant', async () => {
    const res = await api(srv, 'PUT', '/api/v1/flags/button-colour/environments/production', {
      token: admin,
      body: { enabled: true, variant: 'red' },
    })
    expect(res.status).toBe(200)
    const answer = (await evaluate('button-colour', { environment: 'production', user_id: 'nobody-special', plan: 'free', custom: {} }))
      .body
    expect(answer.variant).not.toBeUndefined()
    const fallthrough = await create({
      key: 'env-variant',
      enabled: true,
      variants: { on: true, off: false },
      default_variant: 'off',
      environments: { staging: { enabled: true, variant: 'on' } },
    })
    expect(fallthrough.status).toBe(201)
    expect((await evaluate('env-variant', { environment: 'staging' })).body).toEqual({
      value: true,
      type: 'boolean',
      reason: 'environment_override',
      variant: 'on',
    })
    expect((await evaluate('env-variant')).body).toEqual({ value: false, type: 'boolean', reason: 'default', variant: 'off' })
  })
})

describe('prerequisites', () => {
  test('a chain of any depth: off with prerequisite_failed unless each requirement holds', async () => {
    await create({
      key: 'p-base',
      enabled: true,
      value: true,
      targeting: { rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'free' }], value: false }] },
    })
    await create({
      key: 'p-mid',
      enabled: true,
      variants: { on: 'yes', off: 'no' },
      default_variant: 'on',
      prerequisites: [{ key: 'p-base', value: true }],
    })
    const top = await create({ key: 'p-top', enabled: true, value: 'shown', prerequisites: [{ key: 'p-mid', variant: 'on' }] })
    expect(top.status).toBe(201)
    expect((await evaluate('p-top', { plan: 'pro' })).body).toEqual({ value: 'shown', type: 'string', reason: 'default' })
    expect((await evaluate('p-top', { plan: 'free' })).body).toEqual({ value: null, type: 'null', reason: 'prerequisite_failed' })
    expect((await evaluate('p-mid', { plan: 'free' })).body).toEqual({
      value: null,
      type: 'null',
      reason: 'prerequisite_failed',
      variant: null,
    })
    const o = await ofrep('p-top', { plan: 'free' })
    expect(o.body).toMatchObject({ reason: 'PREREQUISITE_FAILED', variant: 'off' })
    // A disabled prerequisite fails, whatever it serves.
    await update('p-base', { enabled: false })
    expect((await evaluate('p-top', { plan: 'pro' })).body.reason).toBe('prerequisite_failed')
    await update('p-base', { enabled: true })
    expect((await evaluate('p-top', { plan: 'pro' })).body.reason).toBe('default')
  })

  test('cycles are refused at write time, also when an update closes them', async () => {
    const self = await update('p-base', { prerequisites: [{ key: 'p-base', value: true }] })
    expect(self.status).toBe(400)
    expect(self.body.details.issues).toEqual([
      { path: 'prerequisites[0].key', message: 'Prerequisite 1: key "p-base": flag "p-base" cannot require itself' },
    ])
    const cycle = await update('p-base', { prerequisites: [{ key: 'p-top', value: 'shown' }] })
    expect(cycle.status).toBe(400)
    expect(issuesOf(cycle)).toContain('p-base → p-top → p-mid → p-base')
    expect((await api(srv, 'GET', '/api/v1/flags/p-base/definition', { token: admin })).body.flag.prerequisites).toBeUndefined()
  })

  test('two concurrent writes that each close half of a cycle: exactly one is stored', async () => {
    for (let i = 0; i < 8; i++) {
      await create({ key: `race-x${i}`, enabled: true })
      await create({ key: `race-y${i}`, enabled: true })
      const [a, b] = await Promise.all([
        update(`race-x${i}`, { prerequisites: [{ key: `race-y${i}`, value: true }] }),
        update(`race-y${i}`, { prerequisites: [{ key: `race-x${i}`, value: true }] }),
      ])
      expect([a.status, b.status].sort()).toEqual([200, 400])
      expect(issuesOf(a.status === 400 ? a : b)).toContain('cycle')
    }
  })

  const IN_USE_CASES =
    'unknown flags and variants; a required variant cannot be removed; ' + 'a required flag cannot be deleted or archived (409 IN_USE)'
  test(IN_USE_CASES, async () => {
    expect((await create({ key: 'p-x', prerequisites: [{ key: 'nope', value: true }] })).status).toBe(400)
    const badVariant = await create({ key: 'p-x', prerequisites: [{ key: 'p-mid', variant: 'maybe' }] })
    expect(badVariant.status).toBe(400)
    expect(issuesOf(badVariant)).toContain('unknown variant')
    expect((await create({ key: 'p-x', prerequisites: [{ key: 'p-base', variant: 'on' }] })).status).toBe(400)
    const both = await create({ key: 'p-x', prerequisites: [{ key: 'p-base', value: true, variant: 'on' }] })
    expect(both.status).toBe(400)
    const drop = await update('p-mid', { variants: { off: 'no' }, default_variant: 'off' })
    expect(drop.status).toBe(400)
    expect(issuesOf(drop)).toContain('required by flag \\"p-top\\"')
    const del = await api(srv, 'DELETE', '/api/v1/flags/p-mid', { token: admin })
    expect(del.status).toBe(409)
    expect(del.body).toMatchObject({ code: 'IN_USE', details: { flags: ['p-top'] } })
    const archive = await api(srv, 'POST', '/api/v1/flags/p-base/archive', { token: admin })
    expect(archive.status).toBe(409)
    expect(archive.body.details.flags).toEqual(['p-mid'])
    expect((await evaluate('p-base')).status).toBe(200)
  })
})
