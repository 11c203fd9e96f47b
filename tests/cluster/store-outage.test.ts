// PostgreSQL briefly unreachable: evaluations keep serving from memory, writes fail with a clear 503,
// /metrics answers with what it knows (no queue depth, the store errors counted), and everything works
// again once the database is back. The server reaches PostgreSQL through a TCP
// proxy this test controls, so "down" is real (connections refused and cut) without touching the server.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Socket, TCPSocketListener } from 'bun'
import { api, startServer, type TestServer } from '../helpers/server'
import { ADMIN_URL, createTestDatabase, type TestDatabase } from '../helpers/postgres'
import { requireServices } from '../helpers/requirements'
import { parsePrometheus } from '../helpers/prometheus'
import { until } from '../helpers/until'

const ready = await requireServices({ postgres: true })

// Under load nothing here may race the clock: /metrics must answer rather than hang on the dead store (the
// service bounds its queue-depth query, QUEUE_DEPTH_TIMEOUT_MS; what it recorded is checked: no queue depth,
// the store error counted), and recovery is waited for with a generous deadline.
const WAIT_MS = 60_000

/** A loopback TCP proxy to PostgreSQL that can be cut (refuse + drop every connection) and restored. */
function pgProxy(target: URL) {
  type Conn = { peer?: Socket<unknown>; pending: Uint8Array[] }
  const open = new Set<Socket<Conn>>()
  let listener: TCPSocketListener<Conn> | undefined
  let port = 0
  const listen = () => {
    listener = Bun.listen<Conn>({
      hostname: '127.0.0.1',
      port,
      socket: {
        async open(client) {
          open.add(client)
          client.data = { pending: [] }
          const peer = await Bun.connect<unknown>({
            hostname: target.hostname,
            port: Number(target.port || 5432),
            socket: {
              data(_s, chunk) {
                client.write(chunk)
              },
              close() {
                client.end()
              },
              error() {
                client.end()
              },
            },
          })
          // Bytes the client sent while the upstream connection was opening go first.
          for (const chunk of client.data.pending) peer.write(chunk)
          client.data.pending = []
          client.data.peer = peer
        },
        data(client, chunk) {
          if (client.data.peer) client.data.peer.write(chunk)
          else client.data.pending.push(new Uint8Array(chunk))
        },
        close(client) {
          open.delete(client)
          client.data.peer?.end()
        },
        error(client) {
          client.data.peer?.end()
        },
      },
    })
    port = listener.port
  }
  listen()
  return {
    get port() {
      return port
    },
    cut() {
      listener?.stop(true)
      for (const s of open) {
        s.data.peer?.end()
        s.end()
      }
      open.clear()
    },
    restore: listen,
  }
}

describe.skipIf(!ready)('PostgreSQL briefly unavailable', () => {
  let db: TestDatabase
  let srv: TestServer
  let proxy: ReturnType<typeof pgProxy>
  beforeAll(async () => {
    db = await createTestDatabase()
    proxy = pgProxy(new URL(ADMIN_URL))
    const url = new URL(db.url)
    url.hostname = '127.0.0.1'
    url.port = String(proxy.port)
    srv = await startServer({ env: { DATABASE_URL: url.toString() } })
  }, 60_000)
  afterAll(async () => {
    await srv?.stop()
    proxy?.cut()
    await db?.drop()
  }, 30_000)

  test(
    'evaluations keep serving, writes answer 503 STORE_UNAVAILABLE, and recover afterwards',
    async () => {
      const admin = srv.adminToken
      expect((await api(srv, 'POST', '/api/v1/flags', { token: admin, body: { key: 'steady', enabled: true, value: 'on' } })).status).toBe(
        201,
      )
      proxy.cut()
      const ev = await api(srv, 'GET', '/api/v1/flags/steady', { token: admin })
      expect(ev.status).toBe(200)
      expect(ev.body).toEqual({ value: 'on', type: 'string', reason: 'default' })
      const bulk = await api(srv, 'POST', '/api/v1/evaluate', { token: admin, body: { flags: ['steady'] } })
      expect(bulk.body.flags).toEqual({ steady: 'on' })

      const write = await api(srv, 'PUT', '/api/v1/flags/steady', { token: admin, body: { value: 'off' } })
      expect(write.status).toBe(503)
      expect(write.body.code).toBe('STORE_UNAVAILABLE')
      const health = await api(srv, 'GET', '/health')
      expect(health.body.status).toBe('degraded')

      // /metrics still answers, with what is known: no queue depth, the store errors counted.
      const down = await fetch(`${srv.url}/metrics`, { signal: AbortSignal.timeout(WAIT_MS) })
      expect(down.status).toBe(200)
      const outage = parsePrometheus(await down.text())
      expect(outage.find('flagship_webhook_queue_depth')).toEqual([])
      expect(outage.value('flagship_store_errors_total', { source: 'http' })).toBeGreaterThanOrEqual(1)
      expect(outage.value('flagship_store_errors_total', { source: 'metrics' })).toBe(1)
      expect(outage.value('flagship_evaluations_total', { surface: 'flag' })).toBe(1)

      proxy.restore()
      await until(
        'writes work again',
        async () => (await api(srv, 'PUT', '/api/v1/flags/steady', { token: admin, body: { value: 'off' } })).status === 200,
        WAIT_MS,
        100,
      )
      expect((await api(srv, 'GET', '/api/v1/flags/steady', { token: admin })).body.value).toBe('off')
      expect(parsePrometheus(await (await fetch(`${srv.url}/metrics`)).text()).value('flagship_webhook_queue_depth')).toBe(0)
    },
    3 * WAIT_MS,
  )
})
