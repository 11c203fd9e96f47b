// Starts the real service as a child process (as `npm start` does) on a free port with a fresh database.
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { startProcess } from './child-process'
import { createTestDatabase, type TestDatabase } from './postgres'
import { tempDir } from './temp'

const ROOT = join(import.meta.dir, '..', '..')
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

export const randomAdminToken = (): string =>
  `ff_defa_${Array.from(crypto.getRandomValues(new Uint8Array(20)), (b) => ALPHABET[b % 62]).join('')}`

export interface TestServer {
  url: string
  port: number
  adminToken: string
  dbPath: string
  /** DATABASE_URL the server was started with */
  databaseUrl: string
  process: Subprocess
  /** everything the process printed so far */
  output: () => string
  stop(): Promise<void>
  /** SIGKILL, no cleanup: for crash tests */
  kill(): Promise<void>
}

export interface StartOptions {
  env?: Record<string, string>
  /** reuse a SQLite database file (restart tests); default: a new temp file */
  dbPath?: string
  /** reuse another server's database, whichever store it is (restart tests): pass its `databaseUrl` */
  databaseUrl?: string
  adminToken?: string
}

/** The store the suites run against: `TEST_STORE=postgres` runs every API suite on a fresh PostgreSQL
 *  database per server (see package.json's test script); the default is the embedded SQLite. */
export const TEST_STORE = process.env.TEST_STORE === 'postgres' ? 'postgres' : 'sqlite'

export async function startServer(opts: StartOptions = {}): Promise<TestServer> {
  const dbPath = opts.dbPath ?? join(tempDir(), 'flags.db')
  const adminToken = opts.adminToken ?? randomAdminToken()
  let ownDatabase: TestDatabase | undefined
  if (!opts.env?.DATABASE_URL && !opts.databaseUrl && !opts.dbPath && TEST_STORE === 'postgres') ownDatabase = await createTestDatabase()
  const databaseUrl = opts.env?.DATABASE_URL ?? opts.databaseUrl ?? ownDatabase?.url ?? `sqlite:${dbPath}`
  const started = await startProcess('server', [process.execPath, join(ROOT, 'server', 'index.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      BOOTSTRAP_TOKEN: adminToken,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: '1',
      APP_ENV: 'test',
      ...opts.env,
      DATABASE_URL: databaseUrl,
    },
    ready: /"msg":"listening"[^\n]*"port":(\d+)/,
    timeoutMs: 60_000,
  })
  const proc = started.proc
  const port = Number(started.match[1])
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    adminToken,
    dbPath,
    databaseUrl,
    process: proc,
    output: started.output,
    async stop() {
      await started.stop()
      await ownDatabase?.drop()
    },
    /** SIGKILL; the database is kept (a restart may reuse it) and dropped by a later stop() */
    async kill() {
      proc.kill('SIGKILL')
      await proc.exited
    },
  }
}

export interface ApiResponse<T = any> {
  status: number
  headers: Headers
  body: T
  text: string
}

/** A client call: JSON in, JSON out, with the given token (or none). */
export async function api<T = any>(
  srv: { url: string },
  method: string,
  path: string,
  opts: { token?: string | null; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...opts.headers }
  if (opts.token) headers.authorization = `Bearer ${opts.token}`
  let body: string | undefined = opts.rawBody
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body)
    headers['content-type'] ??= 'application/json'
  }
  const res = await fetch(srv.url + path, { method, headers, body })
  const text = await res.text()
  let parsed: any
  try {
    parsed = text ? JSON.parse(text) : undefined
  } catch {
    parsed = text
  }
  return { status: res.status, headers: res.headers, body: parsed, text }
}

/** Creates a token with the given permissions through the API and returns its plaintext. */
export async function createToken(srv: TestServer, permissions: string[], extra: Record<string, unknown> = {}): Promise<string> {
  const res = await api(srv, 'POST', '/api/v1/tokens', {
    token: srv.adminToken,
    body: { name: `t-${permissions.join('+')}`, project_id: 'default', permissions, ...extra },
  })
  if (res.status !== 201) throw new Error(`token create failed: ${res.status} ${res.text}`)
  return res.body.token
}
