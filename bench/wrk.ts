// wrk runs (with `perf stat` where it exists) and their parsing, and the benchmarks' output formatting.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CONNECTIONS, LOAD_CPU, ROUNDS, SECONDS, cpuMs, pinned, spawnTracked, tempDirs, within } from './process'

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
  console.error(
    [
      'wrk is not installed; the HTTP benchmarks need it.',
      '  Debian/Ubuntu: sudo apt-get update && sudo apt-get install -y wrk',
      '  macOS:         brew install wrk',
      '  other:         https://github.com/wg/wrk (make; put `wrk` on PATH)',
    ].join('\n'),
  )
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
      const counts = Object.fromEntries(
        readFileSync(file, 'utf8')
          .split('\n')
          .map((l) => l.split(','))
          .filter((f) => /^\d+$/.test(f[0] ?? ''))
          .map((f) => [f[2], Number(f[0])]),
      )
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
export const fmtInstructions = (r: WrkResult) =>
  r.instructions
    ? `${fmtInt((r.instructions.user + r.instructions.kernel) / 1000)}k instr/req (user ${fmtInt(r.instructions.user / 1000)}k)`
    : ''
export const line = (r: WrkResult) =>
  `${pad(fmtInt(r.rps) + ' req/s', 16)} p50 ${pad(fmtMs(r.p50), 9)} p99 ${pad(fmtMs(r.p99), 9)}` +
  `${r.errors ? `  (${r.errors} errors!)` : ''}${r.instructions ? ` ${fmtInstructions(r)}` : ''}`
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
export const roundRatio = (x: WrkResult, y: WrkResult): number => median((x.rounds ?? [x.rps]).map((v, i) => v / (y.rounds ?? [y.rps])[i]!))

export const loadavg = (): string => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')

/** Warm-up, then ROUNDS interleaved rounds over the targets; the median of each. */
export async function interleaved(
  targets: Target[],
  rounds = ROUNDS,
  warmupSeconds = 2,
  seconds = SECONDS,
  /** wraps each measured run (target index, the run): lets a caller read something around it */
  around: (i: number, run: () => Promise<WrkResult>) => Promise<WrkResult> = (_i, run) => run(),
): Promise<WrkResult[]> {
  const width = Math.max(...targets.map((t) => t.name.length)) + 1
  for (const t of targets) {
    const w = await wrk(t, warmupSeconds)
    console.log(`  warm-up  ${pad(t.name, width)} ${line(w)}`)
  }
  const all: WrkResult[][] = targets.map(() => [])
  for (let round = 1; round <= rounds; round++) {
    for (const [i, t] of targets.entries()) {
      const r = await around(i, () => wrk(t, seconds))
      all[i]!.push(r)
      console.log(`  round ${round}  ${pad(t.name, width)} ${line(r)}`)
    }
  }
  return all.map(summarise)
}

/** Server CPU time (user + system, µs) per request of every run `interleaved` makes, per target, in round
 *  order: pass `around` to it. Unlike requests/s it hardly moves when other work on the machine takes the
 *  cores. */
export function cpuPerRequest(targets: readonly { pid?: number }[]): {
  perRequest: number[][]
  around: (i: number, run: () => Promise<WrkResult>) => Promise<WrkResult>
} {
  const perRequest: number[][] = targets.map(() => [])
  const around = (i: number, run: () => Promise<WrkResult>) => {
    const pid = targets[i]!.pid!
    const before = cpuMs(pid)
    return run().then((res) => {
      perRequest[i]!.push(((cpuMs(pid) - before) * 1000) / Math.max(1, res.requests))
      return res
    })
  }
  return { perRequest, around }
}
