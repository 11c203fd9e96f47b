// The SDK and the server must never disagree: thousands of random contexts against flags covering every
// operator, segments, windows, individual and environment overrides and rollouts, evaluated by the SDK in
// process and by GET /api/v1/flags/:key (and POST /api/v1/evaluate, GET /configs/:key) on a real server.
// Then every rollout reference vector through the SDK.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { readFileSync } from 'node:fs'
import { createClient, type FlagshipClient } from '../../sdk/src'
import { api, createToken, startServer, type TestServer } from '../helpers/server'
import { context, ENVIRONMENTS, HAND_FLAGS, randomFlags, SEGMENTS } from './fixtures'

const CONTEXTS = 2000
const GETS_PER_CONTEXT = 4
const CONCURRENCY = 16
const COVERAGE_SEED = 1

let srv: TestServer
let token: string
let client: FlagshipClient
let keys: string[]

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMIT_EVALUATION_PER_MINUTE: '1000000' } })
  const admin = srv.adminToken
  for (const s of SEGMENTS) expect((await api(srv, 'POST', '/api/v1/segments', { token: admin, body: s })).status).toBe(201)
  const flags = [...HAND_FLAGS, ...randomFlags(20, 1312)]
  expect(flags.length).toBe(HAND_FLAGS.length + 20)
  for (const f of flags) {
    const res = await api(srv, 'POST', '/api/v1/flags', { token: admin, body: f })
    if (res.status !== 201) throw new Error(`flag ${f.key}: ${res.status} ${res.text}`)
  }
  for (const [key, value, environments] of [
    ['limits', { max: 1 }, { production: { value: { max: 9 } } }],
    ['plain', 'x', undefined],
  ] as const) {
    expect((await api(srv, 'POST', '/api/v1/configs', { token: admin, body: { key, value, environments } })).status).toBe(201)
  }
  keys = flags.map((f) => f.key)
  token = await createToken(srv, ['read:flags', 'read:configs'])
  client = createClient({ url: srv.url, token })
  await client.ready()
}, 60_000)
afterAll(async () => {
  await client?.close()
  await srv?.stop()
})

const getFlag = async (key: string, ctx: unknown) => {
  const res = await fetch(`${srv.url}/api/v1/flags/${key}?context=${encodeURIComponent(JSON.stringify(ctx))}`, {
    headers: { authorization: `Bearer ${token}` },
  })
  if (res.status !== 200) throw new Error(`GET ${key}: ${res.status} ${await res.text()}`)
  return res.json()
}

/** Runs `work` over `items`, `CONCURRENCY` at a time. */
async function inParallel<T>(items: T[], work: (item: T, i: number) => Promise<void>): Promise<void> {
  let next = 0
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < items.length) {
        const i = next++
        await work(items[i]!, i)
      }
    }),
  )
}

describe('SDK = server', () => {
  test(`${CONTEXTS} random contexts: GET /flags/:key and POST /evaluate answer what the SDK answers`, async () => {
    // A fixed seed: whether a random sample reaches every step and sends each operator's flag both ways is
    // itself random (it once missed by one flag), so the coverage checks below must not depend on luck.
    const contexts = fc.sample(context, { numRuns: CONTEXTS, seed: COVERAGE_SEED })
    const picks = fc.sample(fc.array(fc.constantFrom(...keys), { minLength: GETS_PER_CONTEXT, maxLength: GETS_PER_CONTEXT }), {
      numRuns: CONTEXTS,
      seed: COVERAGE_SEED + 1,
    })
    const mismatches: string[] = []
    const reasons = new Map<string, Set<string>>()
    await inParallel(contexts, async (ctx, i) => {
      // An environment the project does not list: the service refuses it, the SDK answers the fallback.
      if (ctx.environment !== undefined && !ENVIRONMENTS.includes(ctx.environment as string)) {
        const refused = await api(srv, 'GET', `/api/v1/flags/${picks[i]![0]}?context=${encodeURIComponent(JSON.stringify(ctx))}`, { token })
        const bulk = await api(srv, 'POST', '/api/v1/evaluate', { token, body: { context: ctx } })
        expect([refused.body.code, bulk.body.code]).toEqual(['UNKNOWN_ENVIRONMENT', 'UNKNOWN_ENVIRONMENT'])
        expect(client.evaluate(picks[i]![0]!, ctx as never, 'fb')).toEqual({ value: 'fb', type: 'string', reason: 'error' })
        return
      }
      for (const key of picks[i]!) {
        const server = await getFlag(key, ctx)
        const sdk = client.evaluate(key, ctx as never)
        if (!Bun.deepEquals(sdk, server, true))
          mismatches.push(`${key} ${JSON.stringify(ctx)}: sdk ${JSON.stringify(sdk)}, server ${JSON.stringify(server)}`)
        ;(reasons.get(key) ?? reasons.set(key, new Set()).get(key)!).add(server.reason)
      }
      const bulk = await api(srv, 'POST', '/api/v1/evaluate', { token, body: { context: ctx } })
      expect(bulk.status).toBe(200)
      const all = client.evaluateAll(ctx as never)
      if (!Bun.deepEquals(all, { flags: bulk.body.flags, configs: bulk.body.configs }, true))
        mismatches.push(`evaluateAll ${JSON.stringify(ctx)}: sdk ${JSON.stringify(all)}, server ${bulk.text}`)
    })
    expect(mismatches.slice(0, 5)).toEqual([])
    // The contexts are not vacuous: every step of the evaluation order was reached, and each operator's
    // flag went both ways.
    const seen = new Set([...reasons.values()].flatMap((s) => [...s]))
    expect([...seen].sort()).toEqual([
      'default',
      'disabled',
      'environment_override',
      'override',
      'prerequisite_failed',
      'rollout',
      'targeting',
    ])
    for (const key of keys.filter((k) => k.startsWith('op-')))
      expect([key, [...(reasons.get(key) ?? [])].sort()]).toEqual([key, ['default', 'targeting']])
  }, 120_000)

  test('configs: GET /configs/:key answers what config() does in every environment', async () => {
    for (const key of ['limits', 'plain']) {
      for (const environment of [undefined, ...ENVIRONMENTS]) {
        const res = await api(srv, 'GET', `/api/v1/configs/${key}${environment ? `?environment=${environment}` : ''}`, { token })
        expect(client.config(key, environment)).toEqual(res.body.value)
      }
    }
    expect(client.config('nope')).toBeUndefined()
  })

  test('a client with a default environment answers as the server does for contexts of that environment', async () => {
    const production = createClient({ url: srv.url, token, environment: 'production' })
    try {
      await production.ready()
      for (const ctx of fc.sample(context, { numRuns: 200, seed: 7 })) {
        delete ctx.environment
        for (const key of ['everything', 'env-only', 'op-0-equals']) {
          expect(production.evaluate(key, ctx as never)).toEqual(await getFlag(key, { ...ctx, environment: 'production' }))
        }
      }
      // An own `__proto__` key (JSON.parse makes one) stays a plain attribute when the environment is added;
      // the context given is not changed.
      const hostile = JSON.parse('{"__proto__": {"plan": "pro"}, "user_id": "u-1"}') as Record<string, unknown>
      expect(production.evaluate('everything', hostile as never)).toEqual(
        await getFlag('everything', JSON.parse('{"__proto__": {"plan": "pro"}, "user_id": "u-1", "environment": "production"}')),
      )
      expect(Object.keys(hostile)).toEqual(['__proto__', 'user_id'])
      expect(({} as Record<string, unknown>).plan).toBeUndefined()
    } finally {
      await production.close()
    }
  })
})

describe('rollout reference vectors through the SDK', () => {
  const { vectors } = JSON.parse(readFileSync(new URL('../fixtures/rollout-vectors.json', import.meta.url), 'utf8')) as {
    vectors: { flag: string; value: string; bucket: number }[]
  }
  const rolloutClient = (flag: string, percentage: number) =>
    createClient({
      bootstrap: {
        version: 1,
        environments: [],
        configs: [],
        segments: [],
        flags: [{ key: flag, enabled: true, value: 'in', targeting: { rollout: { percentage, attribute: 'user_id' } } }],
      },
    })

  test(`all ${vectors.length} vectors: inside just above the bucket, outside at it`, () => {
    expect(vectors.length).toBeGreaterThan(0)
    const failures: string[] = []
    for (const v of vectors) {
      const above = rolloutClient(v.flag, v.bucket + 0.01).evaluate(v.flag, { user_id: v.value })
      const at = rolloutClient(v.flag, v.bucket).evaluate(v.flag, { user_id: v.value })
      if (above.value !== 'in' || at.value !== null || at.reason !== 'rollout')
        failures.push(`${v.flag}:${v.value} bucket ${v.bucket}: ${JSON.stringify([above, at])}`)
    }
    expect(failures).toEqual([])
  })
})
