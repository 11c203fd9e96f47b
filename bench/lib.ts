// Shared helpers of the benchmarks (bench/run.ts, request-path.ts): child processes that are always
// stopped (exit, error, SIGINT/SIGTERM, watchdog), the real server started as tests/helpers/server.ts
// starts it, wrk runs and their parsing, and output formatting.
import type { Subprocess } from 'bun'
import { mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs'
import { tmpdir, cpus } from 'node:os'
import { join } from 'node:path'
import { BETA_SEGMENT, CONTEXT, benchFlag, simpleFlag } from './fixtures'
export { CONTEXT, BETA_SEGMENT, benchFlag, simpleFlag } from './fixtures'

export const ROOT = join(import.meta.dir, '..')
export const BUN = process.execPath
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32)
export const LARGE = Number(process.env.BENCH_FLAGS_LARGE ?? 10_000)
export const MAX_SECONDS = Number(process.env.BENCH_MAX_SECONDS ?? 360)

// ---------------------------------------------------------------------------------------------------
// Processes, cleanup, time bound

export const children = new Set<Subprocess>()
export const tempDirs: string[] = []

export function cleanup(): void {
  for (const p of children) {
    if (p.exitCode === null && p.signalCode === null) {
      try {
        p.kill('SIGKILL')
      } catch {}
    }
  }
  children.clear()
  for (const d of tempDirs.splice(0)) rmSync(d, { recursive: true, force: true })
}
process.on('exit', cleanup)
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    console.error(`\n${signal}: stopping everything`)
    cleanup()
    process.exit(130)
  })
}
export const watchdog = setTimeout(() => {
  console.error(`\nbench exceeded ${MAX_SECONDS} s: stopping everything`)
  cleanup()
  process.exit(3)
}, MAX_SECONDS * 1000)

export const hasTaskset = Bun.which('taskset') !== null && cpus().length >= 2
export const pinned = (cpu: number, argv: string[]): string[] => (hasTaskset ? ['taskset', '-c', String(cpu), ...argv] : argv)
export const SERVER_CPU = 0
export const LOAD_CPU = 1

export function spawnTracked(argv: string[], env: Record<string, string | undefined> = {}): { proc: Subprocess; output: () => string } {
  const proc = Bun.spawn(argv, { cwd: ROOT, env: { ...process.env, ...env }, stdout: 'pipe', stderr: 'pipe' })
  children.add(proc)
  void proc.exited.then(() => children.delete(proc))
  let out = ''
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder()
    for await (const chunk of stream) {
      out += decoder.decode(chunk)
      if (out.length > 200_000) out = out.slice(-100_000)
    }
  }
  void pump(proc.stdout as ReadableStream<Uint8Array>)
  void pump(proc.stderr as ReadableStream<Uint8Array>)
  return { proc, output: () => out }
}

/** `promise`, or 'timeout' after `ms` (the timer is cleared, so it never keeps the process alive). */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const expired = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), ms)))
  try {
    return await Promise.race([promise, expired])
  } finally {
    clearTimeout(timer)
  }
}

export async function stopProcess(proc: Subprocess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return
  proc.kill('SIGTERM')
  await within(proc.exited, 5000)
  if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL')
  await proc.exited
}

export async function waitForPort(name: string, proc: Subprocess, output: () => string, timeoutMs = 120_000): Promise<number> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const m = /"msg":"listening"[^\n]*"port":(\d+)/.exec(output())
    if (m) return Number(m[1])
    if (proc.exitCode !== null) throw new Error(`${name} exited with ${proc.exitCode}:\n${output()}`)
    if (Date.now() > deadline) throw new Error(`${name} did not start in time:\n${output()}`)
    await Bun.sleep(25)
  }
}

// ---------------------------------------------------------------------------------------------------
// Servers

export interface FlagServer {
  name: string
  url: string
  pid: number
  token: string
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
  return { name, url: `http://127.0.0.1:${port}`, pid: proc.pid, token, stop: () => stopProcess(proc) }
}

/** A bench/ script that listens on a random port and prints `{"msg":"listening","port":N}`, pinned like the servers. */
export async function startScriptServer(name: string, script: string, env: Record<string, string> = {}): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
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
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, async () => {
    while (next < count) await job(next++)
  }))
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
  return luaScript(`unique-${key}`, [
    'local n = 0',
    'request = function()',
    '  n = n + 1',
    `  return wrk.format("GET", "${before}u" .. n .. "${after}")`,
    'end',
    '',
  ].join('\n'))
}

// ---------------------------------------------------------------------------------------------------
// wrk

export interface WrkResult {
  rps: number
  /** CPU instructions the server executed per request (user, kernel), from `perf stat`; undefined without perf */
  instructions?: { user: number; kernel: number }
  p50: number // ms
  p99: number // ms
  requests: number
  errors: number // non-2xx/3xx + socket errors
  /** after summarise(): requests/s of each round, in order */
  rounds?: number[]
}

export function toMs(value: string, unit: string): number {
  const v = Number(value)
  switch (unit) {
    case 'us':
      return v / 1000
    case 'ms':
      return v
    case 's':
      return v * 1000
    case 'm':
      return v * 60_000
    default:
      return NaN
  }
}

export function parseWrk(out: string): WrkResult {
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1])
  const pct = (p: string) => {
    const m = new RegExp(`^\\s+${p}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, 'm').exec(out)
    return m ? toMs(m[1]!, m[2]!) : NaN
  }
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0)
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0)
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out)
  const socketErrors = socket ? socket.slice(1).reduce((s, x) => s + Number(x), 0) : 0
  if (!Number.isFinite(rps)) throw new Error(`could not parse wrk output:\n${out}`)
  return { rps, p50: pct('50'), p99: pct('99'), requests, errors: non2xx + socketErrors }
}

let scratchDir: string | undefined
/** One temporary directory for the run's small files (wrk scripts, perf output), removed by cleanup(). */
function scratch(): string {
  if (!scratchDir) tempDirs.push((scratchDir = mkdtempSync(join(tmpdir(), 'flagship-bench-'))))
  return scratchDir
}

export function luaScript(name: string, lua: string): string {
  const path = join(scratch(), `${name}.lua`)
  writeFileSync(path, lua)
  return path
}

export interface Target {
  name: string
  url: string
  /** the server's pid: with perf on the machine, its instructions per request are counted too */
  pid?: number
  token?: string
  script?: string
  /** extra request headers, `Name: value` */
  headers?: string[]
}

/** Exits with install instructions when wrk is not on PATH. */
export function requireWrk(): void {
  if (Bun.which('wrk')) return
  console.error([
    'wrk is not installed; the HTTP benchmarks need it.',
    '  Debian/Ubuntu: sudo apt-get update && sudo apt-get install -y wrk',
    '  macOS:         brew install wrk',
    '  other:         https://github.com/wg/wrk (make; put `wrk` on PATH)',
  ].join('\n'))
  process.exit(2)
}

/** `perf stat` can count the server's instructions: a figure that, unlike requests/s, barely moves when
 *  other work on the machine steals time, so it compares two versions of the code reliably. */
export const hasPerf = Bun.which('perf') !== null && process.env.BENCH_PERF !== '0'

/** Counts instructions of `pid` until the returned function is called. */
function countInstructions(pid: number): () => Promise<{ user: number; kernel: number } | undefined> {
  const file = join(scratch(), `perf-${pid}.txt`)
  const { proc } = spawnTracked(['perf', 'stat', '-x,', '-e', 'instructions:u,instructions:k', '-p', String(pid), '-o', file])
  return async () => {
    proc.kill('SIGINT')
    await within(proc.exited, 5000)
    try {
      const counts = Object.fromEntries(readFileSync(file, 'utf8').split('\n').map((l) => l.split(',')).filter((f) => /^\d+$/.test(f[0] ?? '')).map((f) => [f[2], Number(f[0])]))
      const user = counts['instructions:u']
      const kernel = counts['instructions:k']
      return user && kernel ? { user, kernel } : undefined
    } catch {
      return undefined
    }
  }
}

export async function wrk(t: Target, seconds = SECONDS, connections = CONNECTIONS): Promise<WrkResult> {
  const argv = pinned(LOAD_CPU, ['wrk', '-t1', `-c${connections}`, `-d${seconds}s`, '--latency', '--timeout', '5s'])
  if (t.token) argv.push('-H', `Authorization: Bearer ${t.token}`)
  for (const h of t.headers ?? []) argv.push('-H', h)
  if (t.script) argv.push('-s', t.script)
  argv.push(t.url)
  const stopCounting = hasPerf && t.pid ? countInstructions(t.pid) : undefined
  const { proc, output } = spawnTracked(argv)
  const code = await within(proc.exited, (seconds + 15) * 1000)
  const counted = await stopCounting?.()
  if (code === 'timeout') {
    proc.kill('SIGKILL')
    throw new Error(`wrk on ${t.name} did not finish`)
  }
  await Bun.sleep(20) // let the pipes drain
  if (code !== 0) throw new Error(`wrk on ${t.name} exited with ${code}:\n${output()}`)
  const result = parseWrk(output())
  if (counted && result.requests) result.instructions = { user: counted.user / result.requests, kernel: counted.kernel / result.requests }
  return result
}

// ---------------------------------------------------------------------------------------------------
// Output helpers

export const fmtInt = (n: number) => Math.round(n).toLocaleString('en-US')
export const fmtMs = (n: number) => (Number.isFinite(n) ? `${n.toFixed(n < 10 ? 2 : 1)} ms` : 'n/a')
export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}
export const pad = (s: string, n: number) => s + ' '.repeat(Math.max(0, n - s.length))
export const fmtInstructions = (r: WrkResult) => (r.instructions ? `${fmtInt((r.instructions.user + r.instructions.kernel) / 1000)}k instr/req (user ${fmtInt(r.instructions.user / 1000)}k)` : '')
export const line = (r: WrkResult) => `${pad(fmtInt(r.rps) + ' req/s', 16)} p50 ${pad(fmtMs(r.p50), 9)} p99 ${pad(fmtMs(r.p99), 9)}${r.errors ? `  (${r.errors} errors!)` : ''}${r.instructions ? ` ${fmtInstructions(r)}` : ''}`
export const verdict = (ok: boolean) => (ok ? 'PASS' : 'MISS')
export const t0 = Date.now()
export const elapsed = () => `${((Date.now() - t0) / 1000).toFixed(0)}s`

export function summarise(results: WrkResult[]): WrkResult {
  return {
    rps: median(results.map((r) => r.rps)),
    p50: median(results.map((r) => r.p50)),
    p99: median(results.map((r) => r.p99)),
    requests: results.reduce((s, r) => s + r.requests, 0),
    errors: results.reduce((s, r) => s + r.errors, 0),
    rounds: results.map((r) => r.rps),
    instructions: results.every((r) => r.instructions)
      ? { user: median(results.map((r) => r.instructions!.user)), kernel: median(results.map((r) => r.instructions!.kernel)) }
      : undefined,
  }
}

/** The best round (highest requests/s): the least disturbed by other work on the machine. */
export const best = (r: WrkResult): number => Math.max(...(r.rounds ?? [r.rps]))

/** Median over rounds of x.rounds[i] / y.rounds[i] (interleaved rounds: slow drifts cancel out). */
export const roundRatio = (x: WrkResult, y: WrkResult): number =>
  median((x.rounds ?? [x.rps]).map((v, i) => v / (y.rounds ?? [y.rps])[i]!))

export const loadavg = (): string => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')

/** Warm-up, then ROUNDS interleaved rounds over the targets; the median of each. */
export async function interleaved(targets: Target[], rounds = ROUNDS, warmupSeconds = 2, seconds = SECONDS): Promise<WrkResult[]> {
  const width = Math.max(...targets.map((t) => t.name.length)) + 1
  for (const t of targets) {
    const w = await wrk(t, warmupSeconds)
    console.log(`  warm-up  ${pad(t.name, width)} ${line(w)}`)
  }
  const all: WrkResult[][] = targets.map(() => [])
  for (let round = 1; round <= rounds; round++) {
    for (const [i, t] of targets.entries()) {
      const r = await wrk(t, seconds)
      all[i]!.push(r)
      console.log(`  round ${round}  ${pad(t.name, width)} ${line(r)}`)
    }
  }
  return all.map(summarise)
}

