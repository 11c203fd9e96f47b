// Fair webhook delivery through the real server (docs/behaviour.md §8): a receiver that accepts connections
// and never answers, in one project, does not delay another project's delivery; a webhook failing for the
// pause window is paused (visible in the list and the delivery log), its queue waits, and resuming it (an
// audited change) delivers what was queued.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createServer, type Server as TcpServer, type Socket } from 'node:net'
import { printedToken, runCli } from '../helpers/cli'
import { api, startServer, type TestServer } from '../helpers/server'
import { until } from '../helpers/until'

const cleanups: (() => unknown)[] = []
afterAll(async () => {
  for (const c of cleanups.reverse()) await c()
})

/** Accepts TCP connections and never answers. */
async function blackHole(): Promise<string> {
  const sockets: Socket[] = []
  const server: TcpServer = createServer((s) => sockets.push(s))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  cleanups.push(() => {
    sockets.forEach((s) => s.destroy())
    server.close()
  })
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`
}

function receiver(answer: () => number = () => 200) {
  const hits: { at: number; json: any }[] = []
  const srv = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      hits.push({ at: Date.now(), json: await req.json() })
      return new Response('', { status: answer() })
    },
  })
  cleanups.push(() => srv.stop(true))
  return { hits, url: `http://127.0.0.1:${srv.port}/hook` }
}

describe('fair delivery', () => {
  let srv: TestServer
  beforeAll(async () => {
    srv = await startServer()
    cleanups.push(() => srv.stop())
  })

  test("a black-hole receiver in one project does not delay another project's delivery beyond a second", async () => {
    const hook = await api(srv, 'POST', '/api/v1/webhooks', { token: srv.adminToken, body: { url: await blackHole(), events: ['*'] } })
    expect(hook.status).toBe(201)
    // Project B, made by the operator CLI, with its own healthy receiver.
    const made = runCli(srv, 'projects', 'create', '--name', 'Other', '--slug', 'other')
    const projectB = /created project (\w+)/.exec(made.out)![1]!
    const tokenB = printedToken(runCli(srv, 'tokens', 'create', '--project', projectB, '--name', 'b admin', '--permissions', '*').out)
    await until('project B token accepted', async () => (await api(srv, 'GET', '/api/v1/me', { token: tokenB })).status === 200)
    const rx = receiver()
    expect((await api(srv, 'POST', '/api/v1/webhooks', { token: tokenB, body: { url: rx.url, events: ['flag.created'] } })).status).toBe(
      201,
    )

    // Twenty changes queue twenty deliveries to the black hole (5 s timeout each, one in flight).
    for (let i = 0; i < 20; i++) await api(srv, 'POST', '/api/v1/flags', { token: srv.adminToken, body: { key: `a-${i}` } })
    await Bun.sleep(300) // the black hole now holds an attempt
    for (let i = 0; i < 3; i++) {
      const changed = Date.now()
      expect((await api(srv, 'POST', '/api/v1/flags', { token: tokenB, body: { key: `b-${i}` } })).status).toBe(201)
      const hit = await until(`B's delivery ${i}`, () => rx.hits.find((h) => h.json.resource === `b-${i}`), 5000)
      expect(hit.at - changed).toBeLessThan(1000)
    }
  }, 30_000)
})

describe('backoff, pause and resume', () => {
  let srv: TestServer
  beforeAll(async () => {
    srv = await startServer({ env: { WEBHOOK_PAUSE_AFTER_MS: '1500', WEBHOOK_BACKOFF_MAX_MS: '1000' } })
    cleanups.push(() => srv.stop())
  })

  test('paused after failing for the window: shown in the list and the delivery log; resume delivers the queue', async () => {
    let up = false
    const rx = receiver(() => (up ? 200 : 500))
    const created = await api(srv, 'POST', '/api/v1/webhooks', { token: srv.adminToken, body: { url: rx.url, events: ['flag.created'] } })
    const id = created.body.id
    await api(srv, 'POST', '/api/v1/flags', { token: srv.adminToken, body: { key: 'p-1' } })
    const listed = await until('the webhook is paused', async () => {
      const list = await api(srv, 'GET', '/api/v1/webhooks', { token: srv.adminToken })
      const hook = list.body.webhooks.find((w: any) => w.id === id)
      return hook.health.status === 'paused' && hook
    })
    expect(listed.health).toMatchObject({ status: 'paused', paused_at: expect.any(String), failing_since: expect.any(String) })
    expect(listed.health.consecutive_failures).toBeGreaterThanOrEqual(2)
    const log = await api(srv, 'GET', `/api/v1/webhooks/${id}/deliveries`, { token: srv.adminToken })
    expect(log.body.webhook.status).toBe('paused')

    // While paused nothing is attempted; new events queue.
    await api(srv, 'POST', '/api/v1/flags', { token: srv.adminToken, body: { key: 'p-2' } })
    const hits = rx.hits.length
    await Bun.sleep(1200)
    expect(rx.hits.length).toBe(hits)

    up = true
    const resumed = await api(srv, 'POST', `/api/v1/webhooks/${id}/resume`, { token: srv.adminToken })
    expect(resumed.status).toBe(200)
    expect(resumed.body.health).toEqual({
      status: 'active',
      consecutive_failures: 0,
      failing_since: null,
      next_attempt_at: null,
      paused_at: null,
    })
    await until('the queued delivery after resume', () => rx.hits.some((h) => h.json.resource === 'p-2'))
    const audit = await api(srv, 'GET', `/api/v1/audit?resource_type=webhook&action=update`, { token: srv.adminToken })
    expect(audit.body.entries[0]).toMatchObject({
      resource_key: id,
      before: { health: { status: 'paused' } },
      after: { health: { status: 'active' } },
    })
    expect((await api(srv, 'POST', '/api/v1/webhooks/nope/resume', { token: srv.adminToken })).status).toBe(404)
  }, 30_000)
})
