// Which OFREP single-flag requests the fast path (server/http/fast-ofrep.ts) answers itself and which it
// hands to Elysia, seen from inside: through HTTP both give the same bytes (tests/api/ofrep-fast-path.test.ts),
// so only here can a test tell that the fast path served a request at all, and that a request it hands over
// arrives whole (its body's bytes included) with nothing counted or touched for it.
import { describe, expect, test } from 'bun:test'
import type { CachedFlag, Snapshots } from '../../server/cache/snapshots'
import { compileFlag, type FlagDefinition } from '../../server/engine'
import type { Authenticator, Caller } from '../../server/http/auth'
import { fastDispatch } from '../../server/http/fast-dispatch'
import { fastOfrepRoutes } from '../../server/http/fast-ofrep'
import { RequestMetrics } from '../../server/metrics/requests'
import { singleFlagAnswer } from '../../server/http/ofrep-mapping'
import { MemoryRateLimiter, type RateLimiter } from '../../server/http/rate-limit'
import type { DocumentRow } from '../../server/store/documents'
import type { TokenRow } from '../../server/store/tokens'

const URL_OF = (key: string) => `http://localhost:3000/ofrep/v1/evaluate/flags/${key}`
const TOKEN = 'ff_test_aaaaaaaaaaaaaaaaaaaa'
const BODY = '{"context":{"targetingKey":"u-1","plan":"free","country":"nl"}}'

const flagOf = (def: FlagDefinition): CachedFlag => ({ row: { version: 3 } as DocumentRow<never>, compiled: compileFlag(def, new Map()) })
const FLAGS = new Map<string, CachedFlag>([
  [
    'rule',
    flagOf({
      key: 'rule',
      enabled: true,
      value: true,
      targeting: { rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'free' }], value: false }] },
    }),
  ],
  ['split', flagOf({ key: 'split', enabled: true, value: 'on', targeting: { rollout: { percentage: 100, attribute: 'user_id' } } })],
  ['nobody', flagOf({ key: 'nobody', enabled: true, value: 'on', targeting: { rollout: { percentage: 0, attribute: 'user_id' } } })],
])

function callerWith(permissions: string[], expiresAtMs = Infinity): Caller {
  return {
    token: { hash: `h-${permissions.join()}-${expiresAtMs}`, permissions, environment: null } as unknown as TokenRow,
    actor: { projectId: 'p', name: 'test' },
    expiresAtMs,
    rateKeys: { evaluation: `${permissions.join()}-${expiresAtMs}:evaluation`, management: 'm' },
  }
}
const CALLERS: Record<string, Caller> = {
  [`Bearer ${TOKEN}`]: callerWith(['read:flags']),
  'Bearer ff_test_configsonlyaaaaaaaaa': callerWith(['read:configs']),
  'Bearer ff_test_expiredaaaaaaaaaaaaa': callerWith(['*'], Date.now() - 1),
}

/** The fast path over in-memory stand-ins, recording what it touches, counts and hands over. */
function setup(limit = 1000, limiter: RateLimiter = new MemoryRateLimiter()) {
  const touched: Caller[] = []
  const handedOver: { method: string; url: string; headers: Headers; body: Uint8Array }[] = []
  const snapshots = {
    project: (id: string) =>
      id === 'p' ? { flags: FLAGS, project: { environments: Array.from({ length: 36 }, (_, i) => `env-${i}`) } } : undefined,
  } as unknown as Snapshots
  const authenticator = {
    known: (h: string | null) => (h === null ? undefined : CALLERS[h]),
    touch: (c: Caller) => void touched.push(c),
  } as unknown as Authenticator
  const requests = new RequestMetrics()
  const toElysia = async (request: Request) => {
    handedOver.push({ method: request.method, url: request.url, headers: request.headers, body: await request.bytes() })
    return new Response('elysia', { status: 599 })
  }
  const routes = fastOfrepRoutes(
    { snapshots, authenticator, limiter, meter: () => ({ rateClass: 'evaluation', limit }), requests },
    toElysia,
  )
  // As the service serves it: picked by path (fast-dispatch.ts), anything else handed over.
  const dispatch = fastDispatch(routes, toElysia)
  const call = (key: string, init: { body?: BodyInit | null; headers?: Record<string, string>; url?: string } = {}) => {
    const body = init.body === undefined ? BODY : init.body
    const length =
      typeof body === 'string' ? String(Buffer.byteLength(body)) : body instanceof Uint8Array ? String(body.byteLength) : undefined
    const headers: Record<string, string> = {
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
      ...(length !== undefined && { 'content-length': length }),
      ...init.headers,
    }
    for (const [k, v] of Object.entries(headers)) if (v === '') delete headers[k]
    return dispatch(new Request(init.url ?? URL_OF(key), { method: 'POST', headers, body }), undefined as never)
  }
  return { call, touched, handedOver, requests }
}

describe('OFREP fast path: what it answers', () => {
  test("the common case: the route's own answer, Content-Type and X-RateLimit-*, counted and touched once each", async () => {
    const { call, touched, handedOver } = setup(1000)
    for (const remaining of [999, 998]) {
      const res = await call('rule')
      expect(res.status).toBe(200)
      expect(await res.text()).toBe(singleFlagAnswer('rule', FLAGS.get('rule'), JSON.parse(BODY)).text)
      expect([...res.headers.keys()]).toEqual(['content-type', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'])
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8')
      expect(res.headers.get('x-ratelimit-limit')).toBe('1000')
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(remaining))
    }
    expect(touched.length).toBe(2)
    expect(handedOver).toEqual([])
  })

  test('each answer given here is counted for /metrics under the route template; what is handed over is not', async () => {
    const { call, requests } = setup(1000)
    await call('rule')
    await call('no-such-flag') // handed to Elysia, which counts it itself
    const series = requests.series('/ofrep/v1/evaluate/flags/:key', 'POST')
    expect([series.count, series.statuses[200]]).toEqual([1, 1])
  })

  test('X-API-Key, the charset spelling OpenFeature sends, an empty body, and the context errors OFREP words itself', async () => {
    const { call, handedOver } = setup()
    const answered: [string, Parameters<ReturnType<typeof setup>['call']>[1], number, string][] = [
      ['rule', { headers: { authorization: '', 'x-api-key': TOKEN } }, 200, 'TARGETING_MATCH'],
      ['rule', { headers: { 'content-type': 'application/json; charset=utf-8' } }, 200, 'TARGETING_MATCH'],
      ['rule', { body: '', headers: { 'content-type': '' } }, 200, 'DEFAULT'],
      ['split', {}, 200, 'SPLIT'],
      ['split', { body: '{"context":{"plan":"free"}}' }, 400, 'TARGETING_KEY_MISSING'],
      ['rule', { body: '{"context":{"targetingKey":5}}' }, 400, 'INVALID_CONTEXT'],
      ['rule', { body: '"text"' }, 400, 'INVALID_CONTEXT'],
    ]
    for (const [key, init, status, code] of answered) {
      const res = await call(key, init)
      const body = (await res.json()) as { reason?: string; errorCode?: string }
      expect({ key, init, status: res.status, code: body.reason ?? body.errorCode }).toEqual({ key, init, status, code })
    }
    expect(handedOver).toEqual([])
  })

  test('answers prepared once per engine result keep what depends on the context: TARGETING_KEY_MISSING, the environment', async () => {
    const { call } = setup()
    const answer = async (key: string, context: unknown) => {
      const res = await call(key, { body: JSON.stringify({ context }) })
      return [res.status, await res.json()]
    }
    // Out of a 0 % rollout with a targeting key, and without one: the same engine result, different answers.
    for (let i = 0; i < 2; i++) {
      expect(await answer('nobody', { targetingKey: 'u-1' })).toEqual([
        200,
        { key: 'nobody', value: null, reason: 'SPLIT', variant: 'off', metadata: { flagVersion: 3, environment: '' } },
      ])
      expect(await answer('nobody', {})).toEqual([
        400,
        { key: 'nobody', errorCode: 'TARGETING_KEY_MISSING', errorDetails: expect.stringContaining('user_id') },
      ])
    }
    // One result, many environment names (past the 16 kept per result too): each answer names its own.
    for (let i = 0; i < 40; i++) {
      const environment = i % 2 ? `env-${i % 36}` : undefined
      const [status, body] = await answer('rule', { plan: 'free', environment })
      expect([status, body.metadata]).toEqual([200, { flagVersion: 3, environment: environment ?? '' }])
    }
  })

  test("over the budget: 429 with Retry-After, as the app's hook answers it", async () => {
    const { call } = setup(2)
    expect((await call('rule')).status).toBe(200)
    expect((await call('rule')).status).toBe(200)
    const refused = await call('rule')
    expect(refused.status).toBe(429)
    expect(await refused.json()).toEqual({ error: 'Rate limit exceeded', code: 'RATE_LIMITED' })
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0')
  })

  test('a limiter that answers asynchronously (Redis) is waited for', async () => {
    const memory = new MemoryRateLimiter()
    const { call } = setup(5, { hit: (key, limit, now) => Promise.resolve(memory.hit(key, limit, now)) })
    const res = await call('rule')
    expect(res.status).toBe(200)
    expect(res.headers.get('x-ratelimit-remaining')).toBe('4')
  })
})

describe('OFREP fast path: what it hands to Elysia, whole and before any side effect', () => {
  const invalidUtf8 = new Uint8Array([...Buffer.from('{"context":{"plan":"'), 0xff, 0xfe, ...Buffer.from('"}}')])
  const cases: [string, string, Parameters<ReturnType<typeof setup>['call']>[1]][] = [
    ['a browser (Origin)', 'rule', { headers: { origin: 'https://app.example' } }],
    ['a query', 'rule', { url: `${URL_OF('rule')}?limit=x` }],
    ['no Content-Length (chunked)', 'rule', { body: new Blob([BODY]).stream() }],
    ['a body over 16 KiB', 'rule', { body: JSON.stringify({ context: { pad: 'x'.repeat(17_000) } }) }],
    ['another media type', 'rule', { headers: { 'content-type': 'text/plain' } }],
    ['a body without a media type', 'rule', { headers: { 'content-type': '' } }],
    ['an unknown token', 'rule', { headers: { authorization: 'Bearer ff_test_unknownaaaaaaaaaaaaa' } }],
    ['no token', 'rule', { headers: { authorization: '' } }],
    [
      'Authorization wins over X-API-Key',
      'rule',
      { headers: { authorization: 'Bearer ff_test_unknownaaaaaaaaaaaaa', 'x-api-key': TOKEN } },
    ],
    ['an expired token', 'rule', { headers: { authorization: 'Bearer ff_test_expiredaaaaaaaaaaaaa' } }],
    ['a token without read:flags', 'rule', { headers: { authorization: 'Bearer ff_test_configsonlyaaaaaaaaa' } }],
    ['an unknown flag', 'nope', {}],
    ['malformed JSON', 'rule', { body: '{"context":' }],
    ['bytes that are not UTF-8', 'rule', { body: invalidUtf8 }],
    ['nesting deeper than 64', 'rule', { body: '['.repeat(100) + ']'.repeat(100) }],
  ]
  for (const [name, key, init] of cases) {
    test(name, async () => {
      const { call, touched, handedOver } = setup(1000)
      const sent = init!.body === undefined ? BODY : init!.body
      const expected =
        sent instanceof ReadableStream ? Buffer.from(BODY) : typeof sent === 'string' ? Buffer.from(sent) : Buffer.from(sent as Uint8Array)
      const res = await call(key, init)
      expect(res.status).toBe(599)
      expect(handedOver.length).toBe(1)
      expect(handedOver[0]!.method).toBe('POST')
      expect(handedOver[0]!.url).toBe(init!.url ?? URL_OF(key))
      expect(Buffer.from(handedOver[0]!.body).equals(expected)).toBe(true)
      expect(handedOver[0]!.headers.get('content-type')).toBe(
        init!.headers?.['content-type'] === '' ? null : (init!.headers?.['content-type'] ?? 'application/json'),
      )
      expect(touched).toEqual([])
      // Nothing was counted: the next request of the same token is its first.
      expect((await call('rule')).headers.get('x-ratelimit-remaining')).toBe('999')
    })
  }
})
