// Shared helpers of the benchmarks (bench/run.ts, request-path.ts, stream.ts, sdk.ts): the real server
// started as tests/helpers/server.ts starts it, the bare servers it is compared with, and populating it.
// Processes (process.ts) and wrk runs and output (wrk.ts) are re-exported, so scripts import one module.
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BETA_SEGMENT, CONTEXT, benchFlag, simpleFlag } from './fixtures'
import { BUN, ROOT, SERVER_CPU, pinned, spawnTracked, stopProcess, tempDirs, waitForPort } from './process'
import { luaScript } from './wrk'
export { CONTEXT, BETA_SEGMENT, benchFlag, ownRulesFlag, simpleFlag, variantChainFlags } from './fixtures'
export * from './process'
export * from './wrk'

// ---------------------------------------------------------------------------------------------------
// Servers

export interface FlagServer {
  name: string
  url: string
  pid: number
  token: string
  /** the SQLite file (unless DATABASE_URL was given) */
  databasePath?: string
  stop(): Promise<void>
}

export const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
export const randomAdminToken = () => `ff_defa_${Array.from(crypto.getRandomValues(new Uint8Array(20)), (b) => ALPHABET[b % 62]).join('')}`

/** The real service, as tests/helpers/server.ts starts it: fresh SQLite file (unless `env` names another
 *  DATABASE_URL), random port, bootstrap token. */
export async function startFlagServer(name: string, env: Record<string, string> = {}): Promise<FlagServer> {
  const dir = mkdtempSync(join(tmpdir(), 'flagship-bench-'))
  tempDirs.push(dir)
  const token = randomAdminToken()
  const { proc, output } = spawnTracked(pinned(SERVER_CPU, [BUN, join(ROOT, 'server', 'index.ts')]), {
    PORT: '0',
    HOST: '127.0.0.1',
    BOOTSTRAP_TOKEN: token,
    APP_ENV: 'bench',
    DATABASE_URL: `sqlite:${join(dir, 'flags.db')}`,
    REDIS_URL: '',
    RATE_LIMIT_EVALUATION_PER_MINUTE: '1000000000',
    RATE_LIMIT_MANAGEMENT_PER_MINUTE: '1000000000',
    ...env,
  })
  const port = await waitForPort(name, proc, output)
  return {
    name,
    url: `http://127.0.0.1:${port}`,
    pid: proc.pid,
    token,
    databasePath: env.DATABASE_URL ? undefined : join(dir, 'flags.db'),
    stop: () => stopProcess(proc),
  }
}

/** A bench/ script that listens on a random port and prints `{"msg":"listening","port":N}`, pinned like the servers. */
export async function startScriptServer(
  name: string,
  script: string,
  env: Record<string, string> = {},
): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const { proc, output } = spawnTracked(pinned(SERVER_CPU, [BUN, join(ROOT, 'bench', script)]), env)
  const port = await waitForPort(name, proc, output)
  return { url: `http://127.0.0.1:${port}`, pid: proc.pid, stop: () => stopProcess(proc) }
}

export const startBareServer = (body: string) => startScriptServer('bare Bun.serve', 'bare-server.ts', { BENCH_BODY: body })

/** bare-server.ts answering with exactly the service's response (headers and body), prepared once: the
 *  floor the evaluation figure is a ratio to. `headers` as the real server sent them (without Date and
 *  Content-Length, which Bun adds to every response). */
export const startSameAnswerServer = (body: string, headers: Record<string, string>) =>
  startScriptServer('same-answer Bun.serve', 'bare-server.ts', { BENCH_BODY: body, BENCH_HEADERS: JSON.stringify(headers) })

/** bare-server.ts doing only the contract's minimum per request (see there): the ceiling of (b)/(a). */
export const startFloorServer = (body: string, token: string) =>
  startScriptServer('floor Bun.serve', 'bare-server.ts', { BENCH_BODY: body, BENCH_TOKEN: token, BENCH_FLOOR: '1' })

export async function call(srv: FlagServer, method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
  const res = await fetch(srv.url + path, {
    method,
    headers: { authorization: `Bearer ${srv.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: res.status, text: await res.text() }
}

export async function mustCall(srv: FlagServer, method: string, path: string, body: unknown, expected: number): Promise<string> {
  const res = await call(srv, method, path, body)
  if (res.status !== expected) throw new Error(`${method} ${path}: expected ${expected}, got ${res.status}: ${res.text.slice(0, 300)}`)
  return res.text
}

/** Runs `jobs` with at most `concurrency` in flight. */
export async function pool(count: number, concurrency: number, job: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) await job(next++)
    }),
  )
}

export function rssKiB(pid: number): number {
  const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m ? Number(m[1]) : NaN
}

/** Creates the segment, the benchmark flag and `total - 1` other flags (every other one with rules). */
export async function populate(srv: FlagServer, total: number, concurrency = 16): Promise<string[]> {
  await mustCall(srv, 'POST', '/api/v1/segments', BETA_SEGMENT, 201)
  await mustCall(srv, 'POST', '/api/v1/flags', benchFlag('bench-flag'), 201)
  const keys = ['bench-flag']
  for (let n = 1; n < total; n++) keys.push(`flag-${String(n).padStart(5, '0')}`)
  await pool(total - 1, concurrency, (i) => {
    const n = i + 1
    return mustCall(srv, 'POST', '/api/v1/flags', n % 2 ? benchFlag(keys[n]!) : simpleFlag(keys[n]!, n), 201)
  })
  return keys
}

export const evalPath = (key: string) => `/api/v1/flags/${key}?context=${encodeURIComponent(JSON.stringify(CONTEXT))}`

/** A wrk script for GET /flags/:key with a new user_id on every request (CONTEXT otherwise), so no request
 *  finds its context in the server's parse cache: the worst case next to evalPath's one repeated context. */
export function uniqueContextScript(key: string): string {
  const [before, after] = evalPath(key).split(CONTEXT.user_id) as [string, string]
  return luaScript(
    `unique-${key}`,
    ['local n = 0', 'request = function()', '  n = n + 1', `  return wrk.format("GET", "${before}u" .. n .. "${after}")`, 'end', ''].join(
      '\n',
    ),
  )
}
