// `npm run bench`: HTTP and engine benchmarks of the evaluation path, in one bounded run.
//
//   (a) a bare Bun.serve returning a fixed JSON body the size of (b)'s response (bench/bare-server.ts)
//   (b) GET /api/v1/flags/:key?context=... on the real server, a flag with 3 rules + a rollout
//   (c) POST /api/v1/evaluate of 100 flags on the real server
// measured with wrk, interleaved (a, b, c, a, b, c, ...) after a warm-up; then the in-process engine
// benchmark (bench/engine.ts); then a server holding 10,000 flags (created through the API): its
// resident memory, and GET /flags/:key throughput with 10 vs 10,000 flags in the project.
//
// Servers are pinned to CPU 0 and wrk to CPU 1 when `taskset` exists (the reference machine has 2 cores).
// Every process started here is stopped on exit, on error and on SIGINT/SIGTERM; a watchdog bounds the
// whole run (BENCH_MAX_SECONDS, default 360).
//
// Knobs (environment): BENCH_SECONDS (per wrk run, default 5), BENCH_ROUNDS (default 3),
// BENCH_CONNECTIONS (default 32), BENCH_FLAGS_LARGE (default 10000).
import type { Subprocess } from 'bun'
import { mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs'
import { tmpdir, cpus } from 'node:os'
import { join } from 'node:path'

const ROOT = join(import.meta.dir, '..')
const BUN = process.execPath
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32)
const LARGE = Number(process.env.BENCH_FLAGS_LARGE ?? 10_000)
const MAX_SECONDS = Number(process.env.BENCH_MAX_SECONDS ?? 360)

// ---------------------------------------------------------------------------------------------------
// Processes, cleanup, time bound

const children = new Set<Subprocess>()
const tempDirs: string[] = []

function cleanup(): void {
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
const watchdog = setTimeout(() => {
  console.error(`\nbench exceeded ${MAX_SECONDS} s: stopping everything`)
  cleanup()
  process.exit(3)
}, MAX_SECONDS * 1000)

const hasTaskset = Bun.which('taskset') !== null && cpus().length >= 2
const pinned = (cpu: number, argv: string[]): string[] => (hasTaskset ? ['taskset', '-c', String(cpu), ...argv] : argv)
const SERVER_CPU = 0
const LOAD_CPU = 1

function spawnTracked(argv: string[], env: Record<string, string | undefined> = {}): { proc: Subprocess; output: () => string } {
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

async function stopProcess(proc: Subprocess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return
  proc.kill('SIGTERM')
  await Promise.race([proc.exited, Bun.sleep(5000)])
  if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL')
  await proc.exited
}

async function waitForPort(name: string, proc: Subprocess, output: () => string, timeoutMs = 120_000): Promise<number> {
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

interface FlagServer {
  name: string
  url: string
  pid: number
  token: string
  stop(): Promise<void>
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
const randomAdminToken = () => `ff_defa_${Array.from(crypto.getRandomValues(new Uint8Array(20)), (b) => ALPHABET[b % 62]).join('')}`

/** The real service, as tests/helpers/server.ts starts it: fresh SQLite file, random port, bootstrap token. */
async function startFlagServer(name: string): Promise<FlagServer> {
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
  })
  const port = await waitForPort(name, proc, output)
  return { name, url: `http://127.0.0.1:${port}`, pid: proc.pid, token, stop: () => stopProcess(proc) }
}

async function startBareServer(body: string): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const { proc, output } = spawnTracked(pinned(SERVER_CPU, [BUN, join(ROOT, 'bench', 'bare-server.ts')]), { BENCH_BODY: body })
  const port = await waitForPort('bare Bun.serve', proc, output)
  return { url: `http://127.0.0.1:${port}`, pid: proc.pid, stop: () => stopProcess(proc) }
}

async function call(srv: FlagServer, method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
  const res = await fetch(srv.url + path, {
    method,
    headers: { authorization: `Bearer ${srv.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: res.status, text: await res.text() }
}

async function mustCall(srv: FlagServer, method: string, path: string, body: unknown, expected: number): Promise<string> {
  const res = await call(srv, method, path, body)
  if (res.status !== expected) throw new Error(`${method} ${path}: expected ${expected}, got ${res.status}: ${res.text.slice(0, 300)}`)
  return res.text
}

/** Runs `jobs` with at most `concurrency` in flight. */
async function pool(count: number, concurrency: number, job: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, async () => {
    while (next < count) await job(next++)
  }))
}

function rssKiB(pid: number): number {
  const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m ? Number(m[1]) : NaN
}

// ---------------------------------------------------------------------------------------------------
// Fixtures: the benchmark flag (3 rules + rollout) and its context

const CONTEXT = {
  user_id: 'user-4242',
  plan: 'free',
  environment: 'production',
  custom: { country: 'us', app_version: '1.2.0', email: 'u4242@example.com' },
}
// The context matches none of the rules, so evaluation walks all three and ends in the rollout.
const benchFlag = (key: string) => ({
  key,
  enabled: true,
  value: true,
  targeting: {
    rules: [
      { conditions: [{ property: 'user_id', operator: 'in_segment', value: 'beta' }], value: true },
      { conditions: [{ property: 'country', operator: 'in', value: ['jp', 'kr'] }, { property: 'plan', operator: 'equals', value: 'pro' }], value: true },
      { conditions: [{ property: 'custom.email', operator: 'ends_with', value: '@internal.example' }, { property: 'app_version', operator: 'semver_greater_than', value: '1.15.0' }], value: true },
    ],
    rollout: { percentage: 30, attribute: 'user_id' },
  },
})
const simpleFlag = (key: string, n: number) => ({ key, enabled: n % 3 !== 0, value: n % 2 ? 'variant-b' : true })

/** Creates the segment, the benchmark flag and `total - 1` other flags (every other one with rules). */
async function populate(srv: FlagServer, total: number, concurrency = 16): Promise<string[]> {
  await mustCall(srv, 'POST', '/api/v1/segments', { key: 'beta', conditions: [{ property: 'plan', operator: 'equals', value: 'enterprise' }] }, 201)
  await mustCall(srv, 'POST', '/api/v1/flags', benchFlag('bench-flag'), 201)
  const keys = ['bench-flag']
  for (let n = 1; n < total; n++) keys.push(`flag-${String(n).padStart(5, '0')}`)
  await pool(total - 1, concurrency, (i) => {
    const n = i + 1
    return mustCall(srv, 'POST', '/api/v1/flags', n % 2 ? benchFlag(keys[n]!) : simpleFlag(keys[n]!, n), 201)
  })
  return keys
}

const evalPath = (key: string) => `/api/v1/flags/${key}?context=${encodeURIComponent(JSON.stringify(CONTEXT))}`

// ---------------------------------------------------------------------------------------------------
// wrk

interface WrkResult {
  rps: number
  p50: number // ms
  p99: number // ms
  requests: number
  errors: number // non-2xx/3xx + socket errors
}

function toMs(value: string, unit: string): number {
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

function parseWrk(out: string): WrkResult {
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

let luaDir: string | undefined
function luaScript(name: string, lua: string): string {
  luaDir ??= (() => {
    const d = mkdtempSync(join(tmpdir(), 'flagship-bench-lua-'))
    tempDirs.push(d)
    return d
  })()
  const path = join(luaDir, `${name}.lua`)
  writeFileSync(path, lua)
  return path
}

interface Target {
  name: string
  url: string
  token?: string
  script?: string
}

async function wrk(t: Target, seconds = SECONDS, connections = CONNECTIONS): Promise<WrkResult> {
  const argv = pinned(LOAD_CPU, ['wrk', '-t1', `-c${connections}`, `-d${seconds}s`, '--latency', '--timeout', '5s'])
  if (t.token) argv.push('-H', `Authorization: Bearer ${t.token}`)
  if (t.script) argv.push('-s', t.script)
  argv.push(t.url)
  const { proc, output } = spawnTracked(argv)
  const code = await Promise.race([proc.exited, Bun.sleep((seconds + 15) * 1000).then(() => 'timeout' as const)])
  if (code === 'timeout') {
    proc.kill('SIGKILL')
    throw new Error(`wrk on ${t.name} did not finish`)
  }
  await Bun.sleep(20) // let the pipes drain
  if (code !== 0) throw new Error(`wrk on ${t.name} exited with ${code}:\n${output()}`)
  return parseWrk(output())
}

// ---------------------------------------------------------------------------------------------------
// Output helpers

const fmtInt = (n: number) => Math.round(n).toLocaleString('en-US')
const fmtMs = (n: number) => (Number.isFinite(n) ? `${n.toFixed(n < 10 ? 2 : 1)} ms` : 'n/a')
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}
const pad = (s: string, n: number) => s + ' '.repeat(Math.max(0, n - s.length))
const line = (r: WrkResult) => `${pad(fmtInt(r.rps) + ' req/s', 16)} p50 ${pad(fmtMs(r.p50), 9)} p99 ${pad(fmtMs(r.p99), 9)}${r.errors ? `  (${r.errors} errors!)` : ''}`
const verdict = (ok: boolean) => (ok ? 'PASS' : 'MISS')
const t0 = Date.now()
const elapsed = () => `${((Date.now() - t0) / 1000).toFixed(0)}s`

function summarise(results: WrkResult[]): WrkResult {
  return {
    rps: median(results.map((r) => r.rps)),
    p50: median(results.map((r) => r.p50)),
    p99: median(results.map((r) => r.p99)),
    requests: results.reduce((s, r) => s + r.requests, 0),
    errors: results.reduce((s, r) => s + r.errors, 0),
  }
}

/** Warm-up, then ROUNDS interleaved rounds over the targets; the median of each. */
async function interleaved(targets: Target[], rounds = ROUNDS, warmupSeconds = 2): Promise<WrkResult[]> {
  for (const t of targets) {
    const w = await wrk(t, warmupSeconds)
    console.log(`  warm-up  ${pad(t.name, 34)} ${line(w)}`)
  }
  const all: WrkResult[][] = targets.map(() => [])
  for (let round = 1; round <= rounds; round++) {
    for (const [i, t] of targets.entries()) {
      const r = await wrk(t)
      all[i]!.push(r)
      console.log(`  round ${round}  ${pad(t.name, 34)} ${line(r)}`)
    }
  }
  return all.map(summarise)
}

// ---------------------------------------------------------------------------------------------------
// Main

async function main(): Promise<void> {
  if (!Bun.which('wrk')) {
    console.error([
      'wrk is not installed; the HTTP benchmarks need it.',
      '  Debian/Ubuntu: sudo apt-get update && sudo apt-get install -y wrk',
      '  macOS:         brew install wrk',
      '  other:         https://github.com/wg/wrk (make; put `wrk` on PATH)',
    ].join('\n'))
    process.exit(2)
  }
  console.log(`flagship bench: ${cpus().length} CPUs, bun ${Bun.version}, wrk -t1 -c${CONNECTIONS} -d${SECONDS}s, ${ROUNDS} interleaved rounds`)
  console.log(hasTaskset ? `pinning: servers on CPU ${SERVER_CPU}, wrk on CPU ${LOAD_CPU} (taskset)` : 'pinning: none (taskset missing or a single CPU)')

  // --- (a) (b) (c) ---------------------------------------------------------------------------------
  console.log(`\n[${elapsed()}] starting the real server (100 flags) and the bare Bun.serve`)
  const srv = await startFlagServer('server (100 flags)')
  const keys = await populate(srv, 100)
  const bResponse = await call(srv, 'GET', evalPath('bench-flag'))
  if (bResponse.status !== 200) throw new Error(`evaluation failed: ${bResponse.status} ${bResponse.text}`)
  const bulkBody = JSON.stringify({ context: CONTEXT, flags: keys })
  const bulkResponse = await call(srv, 'POST', '/api/v1/evaluate', JSON.parse(bulkBody))
  if (bulkResponse.status !== 200 || Object.keys(JSON.parse(bulkResponse.text).flags).length !== 100) {
    throw new Error(`bulk evaluation failed: ${bulkResponse.status} ${bulkResponse.text.slice(0, 300)}`)
  }
  const bare = await startBareServer(bResponse.text)
  const bareBody = await (await fetch(bare.url)).text()
  if (bareBody.length !== bResponse.text.length) throw new Error('bare body size differs from the evaluation response')
  console.log(`  (b) response: ${bResponse.text} (${bResponse.text.length} bytes; (a) sends the same bytes)`)
  console.log(`  (c) request body ${bulkBody.length} bytes, response ${bulkResponse.text.length} bytes`)
  const postScript = luaScript('evaluate', [
    'wrk.method = "POST"',
    'wrk.headers["Content-Type"] = "application/json"',
    `wrk.body = [==[${bulkBody}]==]`,
    '',
  ].join('\n'))

  const targets: Target[] = [
    { name: '(a) bare Bun.serve', url: bare.url + '/' },
    { name: '(b) GET /flags/:key (3 rules+rollout)', url: srv.url + evalPath('bench-flag'), token: srv.token },
    { name: '(c) POST /evaluate (100 flags)', url: srv.url + '/api/v1/evaluate', token: srv.token, script: postScript },
  ]
  console.log(`\n[${elapsed()}] HTTP: interleaved rounds`)
  const [a, b, c] = (await interleaved(targets)) as [WrkResult, WrkResult, WrkResult]
  const ratio = b.rps / a.rps
  console.log(`  medians:`)
  console.log(`    (a) bare Bun.serve                  ${line(a)}`)
  console.log(`    (b) GET /api/v1/flags/:key          ${line(b)}`)
  console.log(`    (c) POST /api/v1/evaluate x100      ${line(c)}  = ${fmtInt(c.rps * 100)} flag evals/s`)
  console.log(`    (b)/(a) = ${ratio.toFixed(2)}`)

  // Latency without queueing: one connection.
  const bSingle = await wrk(targets[1]!, 3, 1)
  const aSingle = await wrk(targets[0]!, 3, 1)
  console.log(`  one connection (-c1, 3 s): (a) ${line(aSingle)}`)
  console.log(`                             (b) ${line(bSingle)}`)
  const rssMain = rssKiB(srv.pid)
  await bare.stop()
  await srv.stop()

  // --- engine ----------------------------------------------------------------------------------------
  console.log(`\n[${elapsed()}] engine, in process (bench/engine.ts)`)
  const engine = spawnTracked(pinned(SERVER_CPU, [BUN, join(ROOT, 'bench', 'engine.ts')]))
  const engineCode = await Promise.race([engine.proc.exited, Bun.sleep(90_000).then(() => 'timeout' as const)])
  if (engineCode !== 0) throw new Error(`bench/engine.ts failed (${engineCode}):\n${engine.output()}`)
  await Bun.sleep(20)
  const engineOut = engine.output().trim()
  for (const l of engineOut.split('\n')) console.log(`  ${l}`)
  const engineRate = (label: string) => Number((new RegExp(`engine ${label.replace(/[()+.]/g, '\\$&')}: ([\\d,]+) evals/s`).exec(engineOut)?.[1] ?? 'NaN').replace(/,/g, ''))
  const engineSimple = engineRate('simple flag')
  const engineTargeted = engineRate('3 rules + rollout')
  const engineHundred = engineRate('100 flags per context (flags evaluated)')

  // --- 10 vs 10,000 flags ------------------------------------------------------------------------------
  console.log(`\n[${elapsed()}] 10 vs ${fmtInt(LARGE)} flags`)
  const small = await startFlagServer('server (10 flags)')
  await populate(small, 10)
  const large = await startFlagServer(`server (${LARGE} flags)`)
  const created = Date.now()
  const rssEmpty = rssKiB(large.pid)
  await populate(large, LARGE, 16)
  const createSeconds = (Date.now() - created) / 1000
  const listed = JSON.parse((await call(large, 'GET', '/api/v1/flags?limit=1')).text).total
  if (listed !== LARGE) throw new Error(`expected ${LARGE} flags, the server lists ${listed}`)
  console.log(`  created ${fmtInt(LARGE)} flags through the API in ${createSeconds.toFixed(1)} s (${fmtInt(LARGE / createSeconds)} creates/s, 16 in flight)`)
  await Bun.sleep(1000)
  const rssSmall = rssKiB(small.pid)
  const rssLarge = rssKiB(large.pid)
  console.log(`  RSS: empty project ${fmtInt(rssEmpty / 1024)} MiB, 10 flags ${fmtInt(rssSmall / 1024)} MiB, ${fmtInt(LARGE)} flags ${fmtInt(rssLarge / 1024)} MiB`)
  const sizeTargets: Target[] = [
    { name: 'GET /flags/:key, 10 flags', url: small.url + evalPath('bench-flag'), token: small.token },
    { name: `GET /flags/:key, ${fmtInt(LARGE)} flags`, url: large.url + evalPath('bench-flag'), token: large.token },
  ]
  const [s10, sLarge] = (await interleaved(sizeTargets, 2, 2)) as [WrkResult, WrkResult]
  const rssLargeAfter = rssKiB(large.pid)
  const sizeRatio = sLarge.rps / s10.rps
  console.log(`  medians:`)
  console.log(`    ${pad('10 flags', 12)} ${line(s10)}`)
  console.log(`    ${pad(`${fmtInt(LARGE)} flags`, 12)} ${line(sLarge)}   (${((sizeRatio - 1) * 100).toFixed(1)}%)`)
  console.log(`  RSS of the ${fmtInt(LARGE)}-flag server after the load: ${fmtInt(rssLargeAfter / 1024)} MiB`)
  await small.stop()
  await large.stop()

  // --- summary ---------------------------------------------------------------------------------------
  const errors = a.errors + b.errors + c.errors + s10.errors + sLarge.errors
  const rows: [string, string, string][] = [
    ['(a) bare Bun.serve', line(a), ''],
    ['(b) GET /api/v1/flags/:key', line(b), ''],
    ['(c) POST /api/v1/evaluate (100)', line(c), ''],
    ['(b)/(a) throughput', ratio.toFixed(2), `target >= 0.80  ${verdict(ratio >= 0.8)}`],
    [`(b) p99 at -c${CONNECTIONS}`, fmtMs(b.p99), `target < 2 ms   ${verdict(b.p99 < 2)}`],
    ['(b) p99 at -c1', fmtMs(bSingle.p99), `target < 2 ms   ${verdict(bSingle.p99 < 2)}`],
    ['engine simple flag', `${fmtInt(engineSimple)} evals/s`, `target >= 2M    ${verdict(engineSimple >= 2_000_000)}`],
    ['engine 3 rules + rollout', `${fmtInt(engineTargeted)} evals/s`, ''],
    ['engine 100 flags / context', `${fmtInt(engineHundred)} evals/s`, ''],
    [`RSS, ${fmtInt(LARGE)} flags`, `${fmtInt(rssLarge / 1024)} MiB (10 flags: ${fmtInt(rssSmall / 1024)} MiB; 100-flag server after load: ${fmtInt(rssMain / 1024)} MiB)`, ''],
    ['eval req/s 10 flags', `${fmtInt(s10.rps)}`, ''],
    [`eval req/s ${fmtInt(LARGE)} flags`, `${fmtInt(sLarge.rps)} (${((sizeRatio - 1) * 100).toFixed(1)}%)`, `target +-10%    ${verdict(Math.abs(sizeRatio - 1) <= 0.1)}`],
    ['HTTP errors during load', String(errors), errors ? 'results suspect' : ''],
  ]
  console.log(`\n==================== SUMMARY (${elapsed()}) ====================`)
  for (const [k, v, t] of rows) console.log(`${pad(k, 34)} ${pad(v, t ? 46 : 0)}${t ? ` ${t}` : ''}`.trimEnd())
  console.log('==============================================================')
}

try {
  await main()
} catch (e) {
  console.error(`\nbench failed: ${e instanceof Error ? e.stack ?? e.message : String(e)}`)
  process.exitCode = 1
} finally {
  clearTimeout(watchdog)
  cleanup()
}
