// The converted documents imported into a real server (POST /api/v1/import, as `flagship apply` sends
// them) and evaluated over HTTP: the API takes every converted flag and segment, and answers as the
// source tool answered (Unleash's recorded answers; flagd's own evaluator) for the same contexts.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { FlagdCore } from '@openfeature/flagd-core'
import { convert } from '../../server/documents/convert'
import { serializeDocument } from '../../server/documents/serialize'
import { openFeatureContext } from '../../server/engine'
import { api, startServer, type TestServer } from '../helpers/server'

const FIXTURES = join(import.meta.dir, '../fixtures/migration')
const read = (dir: string, name: string) => ({ name, text: readFileSync(join(FIXTURES, dir, name), 'utf8') })
const NOW = Date.parse('2026-11-26T12:00:00.000Z')

let srv: TestServer
beforeAll(async () => {
  srv = await startServer()
})
afterAll(async () => {
  await srv.stop()
})

const evaluate = async (key: string, context: unknown) => {
  const res = await api(srv, 'GET', `/api/v1/flags/${encodeURIComponent(key)}?context=${encodeURIComponent(JSON.stringify(context))}`, {
    token: srv.adminToken,
  })
  expect(res.status).toBe(200)
  return res.body as { value: unknown; variant?: string | null }
}
async function apply(text: string, type: string) {
  const res = await api(srv, 'POST', '/api/v1/import?mode=apply', {
    token: srv.adminToken,
    rawBody: text,
    headers: { 'content-type': type },
  })
  expect({ status: res.status, errors: res.body.errors }).toEqual({ status: 200, errors: [] })
  return res.body
}

test('an Unleash project: imported whole, and answering as Unleash did wherever no rollout decides', async () => {
  const files = ['export.development.json', 'export.production.json', 'segments.json'].map((n) => read('unleash', n))
  const { document } = convert('unleash', files, { now: NOW })
  const applied = await apply(serializeDocument(document, 'yaml'), 'application/yaml')
  expect(applied.summary.create).toBe(document.flags!.length + document.segments!.length)

  const recorded = JSON.parse(read('unleash', 'expected-evaluations.json').text)
  const hashed = new Set([
    'dark-mode/development',
    'legacy-search/development',
    'new-checkout/production',
    'promo-pricing/development',
    'promo-pricing/production',
    'recommendations-v3/development',
    'recommendations-v3/production',
  ])
  let compared = 0
  for (const { context, results } of recorded.contexts) {
    for (const env of ['development', 'production']) {
      for (const feature of Object.keys(recorded.features)) {
        if (hashed.has(`${feature}/${env}`)) continue
        const r = await evaluate(feature, {
          ...(context.userId ? { user_id: context.userId } : {}),
          environment: env,
          custom: { ...(context.sessionId ? { session_id: context.sessionId } : {}), ...context.properties },
        })
        const answer =
          r.variant !== undefined
            ? r.variant === null || r.variant === 'off'
              ? undefined
              : r.variant
            : r.value === true
              ? true
              : undefined
        expect({ feature, env, context, answer }).toEqual({ feature, env, context, answer: results[env][feature] })
        compared++
      }
    }
  }
  expect(compared).toBe(78)
})

test('flagd files: imported whole, and answering as flagd for the contexts of its test bed', async () => {
  const files = ['cheat-sheet-flags.json', 'testing-flags.json'].map((n) => read('flagd', n))
  const { document } = convert('flagd', files)
  await apply(serializeDocument(document, 'json'), 'application/json')
  const contexts = [
    {},
    { targetingKey: '5c3d8535-f81a-4478-a6d3-afaa4d51199e' },
    { email: 'jobs@orange.com' },
    { email: 'ballmer@example.com', tier: 'premium', region: 'eu' },
    { fn: 'Sulisław', ln: 'Świętopełk', age: 29, customer: false },
    { fn: 'Sulisław', ln: 'Świętopełk', age: 29, customer: true },
    { tier: 'enterprise', region: 'usa' },
  ]
  for (const f of files) {
    const core = new FlagdCore()
    core.setConfigurations(f.text)
    for (const [key, flag] of core.getFlags()) {
      if (key === 'timestamp-flag') continue // not converted (reported)
      const first = [...flag.variants.values()][0]
      const type = typeof first === 'object' ? 'object' : (typeof first as 'boolean' | 'string' | 'number')
      for (const context of contexts) {
        const theirs = core.resolve(type, key, '<caller default>' as never, context as never)
        const ours = await evaluate(key, openFeatureContext(context))
        // A null value is what an OpenFeature client answers with its own default.
        expect({
          key,
          context,
          variant: ours.value === null ? undefined : ours.variant,
          value: ours.value === null ? '<caller default>' : ours.value,
        }).toEqual({ key, context, variant: theirs.value === '<caller default>' ? undefined : theirs.variant, value: theirs.value })
      }
    }
  }
})
