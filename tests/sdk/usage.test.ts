// Usage counts: per flag, environment (the project's, else '') and variant, kept across recompiles; sent to
// POST /api/v1/usage unless switched off (a stand-in HTTP server to see batches and failures, and the real
// server to see them land), a failed batch kept for the next one. Plus the SSE reader's framing rules.
import { afterEach, describe, expect, test } from 'bun:test'
import { createClient, type Definitions, type FlagshipClient, type UsageCount } from '../../sdk/src'
import { readEvents, type SseEvent } from '../../sdk/src/sse'
import { waitFor } from './helpers'
import { api, startServer } from '../helpers/server'

const doc = (value: number): Definitions => ({
  version: value,
  environments: ['production', 'staging'],
  configs: [],
  segments: [],
  flags: [
    {
      key: 'f',
      enabled: true,
      value,
      version: value,
      updated_at: `t${value}`,
      targeting: {
        rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'pro' }], value: -1 }],
        rollout: { percentage: 50, attribute: 'user_id' },
      },
    },
    { key: 'off', enabled: false, value: true },
  ],
})

const byVariant = (rows: UsageCount[]) => {
  const sums: Record<string, number> = {}
  for (const r of rows) sums[`${r.key}/${r.environment}/${r.variant}`] = (sums[`${r.key}/${r.environment}/${r.variant}`] ?? 0) + r.count
  return sums
}

let client: FlagshipClient | undefined
afterEach(() => client?.close())

describe('counting', () => {
  test('per flag x environment x variant; unknown environments (answered with the fallback) and unknown keys are not counted', () => {
    client = createClient({ bootstrap: doc(1) })
    for (let i = 0; i < 10; i++) client.evaluate('f', { plan: 'pro', environment: 'production' })
    for (let i = 0; i < 4; i++) expect(client.evaluate('f', { plan: 'pro', environment: 'mars' }, 'fb').reason).toBe('error')
    client.evaluate('f', { user_id: 'u-1', environment: 'staging' })
    client.evaluate('off')
    client.evaluate('missing')
    client.evaluateAll({ plan: 'pro' })
    const rollout = client.evaluate('f', { user_id: 'u-1', environment: 'staging' }).value === 1 ? 'rollout' : 'off'
    expect(byVariant(client.usageCounts())).toEqual({
      'f/production/rule-1': 10,
      'f//rule-1': 1,
      [`f/staging/${rollout}`]: 2,
      'off//off': 2,
    })
    // Peeking does not consume them.
    expect(client.usageCounts().reduce((n, r) => n + r.count, 0)).toBe(15)
  })

  test('a flag with more distinct results than the counter scans (12 rules): every one counted, also after a drain', () => {
    const rules = Array.from({ length: 12 }, (_, n) => ({
      conditions: [{ property: 'plan', operator: 'equals' as const, value: `p${n}` }],
      value: n,
    }))
    client = createClient({
      bootstrap: {
        version: 1,
        environments: ['production'],
        configs: [],
        segments: [],
        flags: [{ key: 'many', enabled: true, value: -1, targeting: { rules } }],
      },
    })
    const round = () => {
      for (let n = 0; n < 12; n++) for (let i = 0; i <= n; i++) client!.evaluate('many', { plan: `p${n}`, environment: 'production' })
    }
    round()
    const want = Object.fromEntries(Array.from({ length: 12 }, (_, n) => [`many/production/rule-${n + 1}`, n + 1]))
    expect(byVariant(client.usageCounts())).toEqual(want)
    // Sending takes the counts; what is counted afterwards starts from zero.
    ;(client as unknown as { collectUsage(take: boolean): unknown }).collectUsage(true)
    expect(client.usageCounts()).toEqual([])
    round()
    expect(byVariant(client.usageCounts())).toEqual(want)
  })

  test('counts survive a flag being recompiled by a change', async () => {
    const stub = Bun.serve({
      port: 0,
      fetch: (req) =>
        new URL(req.url).pathname === '/api/v1/definitions'
          ? Response.json(doc(hits++ === 0 ? 1 : 2))
          : new Response('no', { status: 404 }),
    })
    let hits = 0
    try {
      client = createClient({ url: stub.url.origin, token: 't', stream: false, pollIntervalMs: 30 })
      await client.ready()
      client.evaluate('f', { plan: 'pro' })
      await waitFor(() => client!.version === 2, 2000, 'the second document')
      expect(client.evaluate('f', { plan: 'free', user_id: 'u-1' }).value).not.toBe(1)
      client.evaluate('f', { plan: 'pro' })
      expect(byVariant(client.usageCounts())['f//rule-1']).toBe(2)
    } finally {
      await client?.close()
      await stub.stop(true)
    }
  })
})

describe('sending', () => {
  test('usage: false: nothing is posted', async () => {
    const posts: string[] = []
    const stub = Bun.serve({
      port: 0,
      fetch: async (req) => (req.method === 'POST' && posts.push(await req.text()), Response.json(doc(1))),
    })
    try {
      client = createClient({ url: stub.url.origin, token: 't', stream: false, usage: false })
      await client.ready()
      client.evaluate('f')
      await client.close()
      expect(posts).toEqual([])
    } finally {
      await stub.stop(true)
    }
  })

  const BATCHES =
    'on: batches { counts: [{ key, environment, variant, count, from, to }] } with the token; ' + 'a failed batch goes with the next'
  test(BATCHES, async () => {
    const batches: { counts: UsageCount[] }[] = []
    let failNext = true
    const stub = Bun.serve({
      port: 0,
      async fetch(req) {
        const path = new URL(req.url).pathname
        if (path === '/api/v1/definitions') return Response.json(doc(1))
        if (path !== '/api/v1/usage' || req.method !== 'POST' || req.headers.get('authorization') !== 'Bearer tok')
          return new Response('no', { status: 404 })
        if (failNext) return ((failNext = false), new Response('busy', { status: 503 }))
        batches.push(await req.json())
        return new Response(null, { status: 204 })
      },
    })
    try {
      client = createClient({ url: stub.url.origin, token: 'tok', stream: false, usage: { intervalMs: 50 } })
      const errors: unknown[] = []
      client.on('error', (e) => errors.push(e))
      await client.ready()
      for (let i = 0; i < 3; i++) client.evaluate('f', { plan: 'pro', environment: 'production' })
      await waitFor(() => errors.length > 0, 2000, 'the failed batch')
      client.evaluate('off')
      await waitFor(() => batches.length > 0, 2000, 'a batch')
      const rows = batches.flatMap((b) => b.counts)
      expect(byVariant(rows)).toEqual({ 'f/production/rule-1': 3, 'off//off': 1 })
      for (const r of rows) expect(Date.parse(r.from)).toBeLessThanOrEqual(Date.parse(r.to))
      // What was sent is no longer pending; close() sends the rest.
      expect(client.usageCounts()).toEqual([])
      client.evaluate('off')
      await client.close()
      expect(byVariant(batches.flatMap((b) => b.counts))['off//off']).toBe(2)
    } finally {
      await stub.stop(true)
    }
  })
})

describe('the SSE reader', () => {
  test('events split anywhere, CRLF/CR line ends, comments, multi-line data, events without data dropped', async () => {
    const text =
      ': hi\r\nid: 4\r\nevent: change\r\ndata: {"a":\r\ndata: 1}\r\n\r\nevent: empty\n\ndata: plain\r\rretry: 5\nevent: reset\ndata: {}\n\n'
    const bytes = new TextEncoder().encode(text)
    for (const size of [1, 2, 3, 7, bytes.length]) {
      const chunks: Uint8Array[] = []
      for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.slice(i, i + size))
      const events: SseEvent[] = []
      let activity = 0
      await readEvents(
        new Blob(chunks as BlobPart[]).stream().pipeThrough(new TransformStream()),
        (e) => events.push(e),
        () => activity++,
      )
      expect(events).toEqual([
        { event: 'change', data: '{"a":\n1}', id: '4' },
        { event: 'message', data: 'plain', id: '4' },
        { event: 'reset', data: '{}', id: '4' },
      ])
      expect(activity).toBeGreaterThan(0)
    }
  })

  test('on by default, against the real server: the counts land in GET /api/v1/flags/:key/usage', async () => {
    const srv = await startServer({ env: { USAGE_FLUSH_MS: '200' } })
    try {
      await api(srv, 'POST', '/api/v1/flags', { token: srv.adminToken, body: { key: 'sdk-counted', enabled: true, value: true } })
      client = createClient({ url: srv.url, token: srv.adminToken, stream: false })
      await client.ready()
      for (let i = 0; i < 7; i++) client.evaluate('sdk-counted', { environment: 'staging' })
      await client.close() // sends the last batch
      const buckets = (await api(srv, 'GET', '/api/v1/flags/sdk-counted/usage', { token: srv.adminToken })).body.buckets
      expect(buckets).toEqual([expect.objectContaining({ environment: 'staging', variant: 'default', count: 7 })])
    } finally {
      await srv.stop()
    }
  }, 60_000)
})
