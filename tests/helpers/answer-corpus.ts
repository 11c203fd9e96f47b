// A corpus of answers (tests/fixtures/answer-corpus.<store>.json): a project with a spread of flags that use
// nothing of environments' own rules, and every evaluation surface's raw response body for a spread of
// contexts. Recorded once from main before own rules per environment existed (tests/fixtures/record-answer-
// corpus.ts); tests/api/answer-corpus.test.ts replays the same project and requires the same bytes, so data
// written before answers exactly as before. Timestamps (created_at, updated_at, a stream's) are the one part
// that differ between two runs (and an OFREP stream address): they are masked, nothing else is.
import { createClient } from '../../sdk/src'
import { api, type TestServer } from './server'

const SEGMENTS = [
  { key: 'beta-testers', conditions: [{ property: 'custom.beta', operator: 'equals', value: true }] },
  { key: 'europe', conditions: [{ property: 'country', operator: 'in', value: ['DE', 'FR', 'NL'] }] },
]

const FLAGS: Record<string, unknown>[] = [
  { key: 'plain-on', enabled: true },
  { key: 'plain-off', enabled: false, value: 'blue' },
  {
    key: 'pro-plan',
    enabled: true,
    value: false,
    targeting: { rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'pro' }], value: true }] },
  },
  {
    key: 'checkout',
    enabled: true,
    value: 'old',
    targeting: {
      overrides: { 'u-vip': 'vip' },
      rules: [
        { conditions: [{ operator: 'in_segment', value: 'beta-testers' }], value: 'beta' },
        {
          conditions: [
            { property: 'email', operator: 'matches', value: '^[a-z]+@example\\.com$' },
            { property: 'app_version', operator: 'semver_greater_than', value: '2.0.0' },
          ],
          value: 'new',
        },
      ],
      rollout: { percentage: 30, attribute: 'user_id' },
    },
    environments: { development: { enabled: true, value: 'dev' }, production: { enabled: false } },
  },
  {
    key: 'banner',
    enabled: true,
    value: 'none',
    variants: { none: 'none', red: 'red', green: 'green' },
    default_variant: 'none',
    off_variant: 'none',
    targeting: {
      rules: [{ conditions: [{ operator: 'in_segment', value: 'europe' }], variant: 'green' }],
      rollout: {
        distribution: [
          { variant: 'red', weight: 50 },
          { variant: 'green', weight: 25.5 },
          { variant: 'none', weight: 24.5 },
        ],
        attribute: 'user_id',
      },
    },
    environments: { staging: { enabled: true, variant: 'red' }, production: { enabled: true } },
  },
  {
    key: 'limits',
    enabled: true,
    value: { max: 10, tier: 'free' },
    targeting: { rules: [{ conditions: [{ property: 'plan', operator: 'not_in', value: ['free'] }], value: { max: 100, tier: 'paid' } }] },
    environments: { staging: { enabled: true, value: { max: 1, tier: 'test' } } },
  },
  {
    key: 'needs-pro',
    enabled: true,
    value: 7,
    prerequisites: [{ key: 'pro-plan', value: true }],
    targeting: { rules: [{ conditions: [{ property: 'age', operator: 'greater_than_or_equal', value: 18 }], value: 8 }] },
  },
  { key: 'windowed', enabled: true, active_from: '2020-01-01T00:00:00Z', active_until: '2021-01-01T00:00:00Z' },
  {
    key: 'half',
    enabled: true,
    value: 'in',
    targeting: { rollout: { percentage: 50, attribute: 'company' } },
    environments: { production: { enabled: true, value: 'prod-in' } },
  },
]

const CONFIGS = [
  { key: 'limits', value: { max: 10 }, environments: { production: { value: { max: 100 } } } },
  { key: 'greeting', value: 'hello' },
]

const CONTEXTS: Record<string, unknown>[] = [
  {},
  { user_id: 'u-1' },
  { user_id: 'u-vip', environment: 'production' },
  { user_id: 'u-2', plan: 'pro', environment: 'staging' },
  { user_id: 'u-3', plan: 'free', environment: 'development', custom: { beta: true } },
  {
    user_id: 'u-4',
    plan: 'pro',
    environment: 'production',
    custom: { country: 'DE', email: 'ann@example.com', app_version: '2.1.0', age: 30, company: 'acme' },
  },
  { user_id: 'u-5', custom: { email: 'bob@example.com', app_version: '1.9.0', company: 'globex' } },
  { user_id: 'u-6', environment: 'staging', custom: { country: 'FR', age: 12 } },
]

export interface Answer {
  surface: string
  status: number
  body: string
}

const TIMESTAMP = /"(created_at|updated_at|at|timestamp)":"[^"]*"/g
/** Timestamps differ between two runs; everything else must be the same bytes. */
// An OFREP bulk answer's stream address holds the port and a fresh signed ticket.
const STREAM_URL = /"url":"http:[^"]*"/g
export const masked = (text: string) => text.replace(TIMESTAMP, '"$1":"<time>"').replace(STREAM_URL, '"url":"<stream>"')

export async function seedCorpusProject(server: TestServer): Promise<void> {
  const token = server.adminToken
  for (const body of SEGMENTS) {
    const res = await api(server, 'POST', '/api/v1/segments', { token, body })
    if (res.status !== 201) throw new Error(`segment ${body.key}: ${res.status} ${res.text}`)
  }
  for (const body of FLAGS) {
    const res = await api(server, 'POST', '/api/v1/flags', { token, body })
    if (res.status !== 201) throw new Error(`flag ${String(body.key)}: ${res.status} ${res.text}`)
  }
  for (const body of CONFIGS) {
    const res = await api(server, 'POST', '/api/v1/configs', { token, body })
    if (res.status !== 201) throw new Error(`config ${body.key}: ${res.status} ${res.text}`)
  }
}

/** Every surface's raw answer, in a fixed order. */
export async function collectAnswers(server: TestServer): Promise<Answer[]> {
  const token = server.adminToken
  const out: Answer[] = []
  const take = async (surface: string, method: string, path: string, body?: unknown) => {
    const res = await api(server, method, path, { token, ...(body !== undefined && { body }) })
    out.push({ surface, status: res.status, body: masked(res.text) })
  }
  for (const [i, ctx] of CONTEXTS.entries()) {
    const q = `?context=${encodeURIComponent(JSON.stringify(ctx))}`
    for (const f of FLAGS) {
      const key = String(f.key)
      await take(`GET flag ${key} ctx${i}`, 'GET', `/api/v1/flags/${key}${q}`)
      await take(`OFREP flag ${key} ctx${i}`, 'POST', `/ofrep/v1/evaluate/flags/${key}`, { context: ofrepContext(ctx) })
      await take(`explain ${key} ctx${i}`, 'POST', `/api/v1/flags/${key}/explain`, { context: ctx, at: '2026-01-01T00:00:00.000Z' })
    }
    await take(`bulk ctx${i}`, 'POST', '/api/v1/evaluate', { context: ctx })
    await take(`OFREP bulk ctx${i}`, 'POST', '/ofrep/v1/evaluate/flags', { context: ofrepContext(ctx) })
  }
  for (const env of ['', 'development', 'staging', 'production']) {
    await take(`definitions ${env || '(all)'}`, 'GET', `/api/v1/definitions${env ? `?environment=${env}` : ''}`)
  }
  for (const f of FLAGS) await take(`stored ${String(f.key)}`, 'GET', `/api/v1/flags/${String(f.key)}/definition`)
  for (const c of CONFIGS) {
    for (const env of ['', 'development', 'staging', 'production'])
      await take(`config ${c.key} ${env || '(none)'}`, 'GET', `/api/v1/configs/${c.key}${env ? `?environment=${env}` : ''}`)
  }
  // The SDK, evaluating in process from the definitions (the same engine, shipped to applications).
  const definitions = (await api(server, 'GET', '/api/v1/definitions', { token })).body
  const sdk = createClient({ bootstrap: definitions, usage: false })
  try {
    // A flag using `matches` waits for the regex engine, which the SDK loads on demand.
    await sdk.ready()
    for (const [i, ctx] of CONTEXTS.entries()) {
      for (const f of FLAGS)
        out.push({ surface: `SDK ${String(f.key)} ctx${i}`, status: 200, body: JSON.stringify(sdk.evaluate(String(f.key), ctx as never)) })
    }
  } finally {
    await sdk.close()
  }
  await take('export yaml', 'GET', '/api/v1/export?format=yaml')
  await take('export json', 'GET', '/api/v1/export?format=json')
  return out
}

/** The same context as OpenFeature sends it: targetingKey for user_id, custom attributes at the top. */
function ofrepContext(ctx: Record<string, unknown>): Record<string, unknown> {
  const { user_id, custom, ...rest } = ctx
  return { ...(user_id !== undefined && { targetingKey: user_id }), ...rest, ...(custom as Record<string, unknown> | undefined) }
}
