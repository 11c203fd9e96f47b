// One order on every evaluation path: admit (the token, then its rate limit) first, then count the usage.
// A request refused with 429 is not an evaluation anyone received, so it is not usage: on the fast paths
// (server/http/fast-evaluation.ts, fast-ofrep.ts, sharing fast-admission.ts) as on Elysia's (an Origin
// header sends the same request there).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { api, createToken, startServer, type TestServer } from '../helpers/server'

let srv: TestServer
const LIMIT = 3
const ctx = encodeURIComponent(JSON.stringify({ user_id: 'u1', plan: 'pro' }))

/** The flag's usage total once a few flushes (USAGE_FLUSH_MS is 100 here) have passed with nothing new. */
async function settledUsage(key: string, atLeast: number): Promise<number> {
  const total = async () =>
    ((await api(srv, 'GET', `/api/v1/flags/${key}/usage`, { token: srv.adminToken })).body.buckets ?? []).reduce(
      (n: number, b: { count: number }) => n + b.count,
      0,
    )
  const deadline = Date.now() + 20_000
  let seen = await total()
  while (seen < atLeast && Date.now() < deadline) {
    await Bun.sleep(100)
    seen = await total()
  }
  // Anything counted late (a 429 counted by mistake) would arrive within the next flushes.
  await Bun.sleep(600)
  return total()
}

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMIT_EVALUATION_PER_MINUTE: String(LIMIT), USAGE_FLUSH_MS: '100' } })
  for (const key of ['get-fast', 'ofrep-fast', 'ofrep-empty', 'get-elysia']) {
    await api(srv, 'POST', '/api/v1/flags', {
      token: srv.adminToken,
      body: {
        key,
        enabled: true,
        value: false,
        targeting: { rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'pro' }], value: true }] },
      },
    })
  }
})
afterAll(() => srv?.stop())

/** `n` requests made one after another; their statuses. */
async function statuses(n: number, request: () => Promise<Response>): Promise<number[]> {
  const out: number[] = []
  for (let i = 0; i < n; i++) {
    const res = await request()
    await res.arrayBuffer()
    out.push(res.status)
  }
  return out
}
const expected = [...Array(LIMIT).fill(200), 429, 429, 429]

describe('429 is not usage', () => {
  test('GET /api/v1/flags/:key on the fast path', async () => {
    const token = await createToken(srv, ['read:flags'])
    expect(
      await statuses(6, () => fetch(`${srv.url}/api/v1/flags/get-fast?context=${ctx}`, { headers: { Authorization: `Bearer ${token}` } })),
    ).toEqual(expected)
    expect(await settledUsage('get-fast', LIMIT)).toBe(LIMIT)
  })

  test('POST /ofrep/v1/evaluate/flags/:key on the fast path, with a body and without one', async () => {
    const token = await createToken(srv, ['read:flags'])
    const post = (key: string, body?: string) =>
      fetch(`${srv.url}/ofrep/v1/evaluate/flags/${key}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        body,
      })
    expect(await statuses(6, () => post('ofrep-fast', JSON.stringify({ context: { targetingKey: 'u1', plan: 'pro' } })))).toEqual(expected)
    expect(await settledUsage('ofrep-fast', LIMIT)).toBe(LIMIT)
    const other = await createToken(srv, ['read:flags'])
    const empty = () =>
      fetch(`${srv.url}/ofrep/v1/evaluate/flags/ofrep-empty`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${other}`, 'Content-Length': '0' },
      })
    expect(await statuses(6, empty)).toEqual(expected)
    expect(await settledUsage('ofrep-empty', LIMIT)).toBe(LIMIT)
  })

  test("Elysia's path (a browser's Origin) agrees", async () => {
    const token = await createToken(srv, ['read:flags'])
    expect(
      await statuses(6, () =>
        fetch(`${srv.url}/api/v1/flags/get-elysia?context=${ctx}`, {
          headers: { Authorization: `Bearer ${token}`, Origin: 'https://app.example' },
        }),
      ),
    ).toEqual(expected)
    expect(await settledUsage('get-elysia', LIMIT)).toBe(LIMIT)
  })
})
