// flagship-sdk in process (issue: "the SDK's evaluate against @openfeature/flagd-core"). Run by
// bench/run.ts (pinned to one CPU); alone: `bun bench/sdk.ts`. Prints readable lines, then one
// `SDK_FIGURES {json}` line for run.ts.
//   1. The same flag (a rule on `plan`, then a 50 % rollout on `user_id` serving true) over the same 100,000
//      contexts: the built SDK's evaluate vs flagd-core's resolveBooleanEvaluation vs a hand-written
//      evaluator, side by side in one process (bench/sdk-compare.mjs), on Node and on Bun.
//      Also the same rules as an environment's own rules vs as the flag's (within 5 %).
//   2. The SDK's evaluate with 10 vs 10,000 flags loaded (same flag shape, keys spread over the map), on Bun.
//   3. The browser bundle (npm run build:sdk): min+gzip of the up-front entry and of the regex chunk.
//   4. A change (PUT on a real server) to the SDK serving it through the stream: p50 / max over 20 changes.
import { join } from 'node:path'
import { buildSdk, sizes } from '../sdk/build'
import { createClient, type Definitions, type StoredFlag } from '../sdk/src'
import { cleanup, fmtInt, fmtMs, median, startFlagServer, watchdog } from './lib'

const CONTEXTS = 100_000
const ROUNDS = Number(process.env.BENCH_SDK_ROUNDS ?? 5)
const CHANGES = 20

/** One runtime's side-by-side figures (bench/sdk-compare.mjs). */
export interface Comparison {
  runtime: string
  /** evaluations per second, medians over rounds */
  sdk: number
  flagd: number
  hand: number
  /** SDK / flagd-core and SDK / hand-written, medians of the per-round ratios */
  ratio: number
  handRatio: number
  servedTrue: number
  /** the same rules as production's own vs as the flag's, contexts in production: evals/s and their ratio */
  flagRules: number
  ownRules: number
  ownRatio: number
}

export interface SdkFigures {
  node: Comparison | null
  bun: Comparison
  tenFlags: number
  manyFlags: number
  manyFlagsCount: number
  /** 1,024 different keys in turn out of the 10,000 */
  spreadFlags: number
  upFrontBytes: number
  regexBytes: number
  changeP50: number
  changeMax: number
}

const flag = (key: string): StoredFlag => ({
  key,
  enabled: true,
  value: true,
  targeting: {
    rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'pro' }], value: true }],
    rollout: { percentage: 50, attribute: 'user_id' },
  },
})
const definitions = (flags: StoredFlag[]): Definitions => ({ version: 1, environments: [], flags, configs: [], segments: [] })

const PLANS = ['free', 'pro', 'team', 'free']
const ours = Array.from({ length: CONTEXTS }, (_, i) => ({ user_id: `user-${i}`, plan: PLANS[i % 4]! }))

let sink = 0

/** Evaluations per second of one pass over every context (after a warm-up pass). */
function pass(run: (i: number) => boolean): number {
  const start = performance.now()
  for (let i = 0; i < CONTEXTS; i++) if (run(i)) sink++
  return CONTEXTS / ((performance.now() - start) / 1000)
}

function rounds(runs: Record<string, (i: number) => boolean>): Record<string, number> {
  const rates: Record<string, number[]> = {}
  for (const [name, run] of Object.entries(runs)) pass(run), pass(run) // warm-up: let the JIT settle
  for (let r = 0; r < ROUNDS; r++) {
    for (const [name, run] of Object.entries(runs)) (rates[name] ??= []).push(Math.max(pass(run), pass(run)))
  }
  return Object.fromEntries(Object.entries(rates).map(([name, xs]) => [name, median(xs)]))
}

export async function benchSdk(log: (line: string) => void = console.log): Promise<SdkFigures> {
  // 1. SDK vs flagd-core vs hand-written, the same flag and contexts, on the built SDK, Node then Bun.
  await buildSdk()
  const node = Bun.which('node')
  const compared: Comparison[] = []
  for (const runtime of node === null ? [process.execPath] : [node, process.execPath]) {
    const child = Bun.spawn([runtime, join(import.meta.dir, 'sdk-compare.mjs')], {
      stdout: 'pipe',
      stderr: 'pipe',
      env: { ...process.env, BENCH_SDK_ROUNDS: String(ROUNDS) },
    })
    const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
    const json = /^COMPARE (.*)$/m.exec(out)?.[1]
    if (code !== 0 || json === undefined) throw new Error(`bench/sdk-compare.mjs failed on ${runtime} (${code}):\n${out}${err}`)
    const c = JSON.parse(json) as Comparison
    compared.push(c)
    log(
      `${c.runtime}: SDK ${fmtInt(c.sdk)}, flagd-core ${fmtInt(c.flagd)}, hand-written ${fmtInt(c.hand)} evals/s ` +
        `(${fmtInt(CONTEXTS)} contexts, ${(c.servedTrue * 100).toFixed(1)} % served true, medians of ${ROUNDS} rounds)`,
    )
    log(`${c.runtime}: SDK / flagd-core ${c.ratio.toFixed(2)}x, SDK / hand-written ${c.handRatio.toFixed(2)}`)
    log(
      `${c.runtime}: the same rules as production's own ${fmtInt(c.ownRules)} vs the flag's ${fmtInt(c.flagRules)} evals/s: ` +
        `own / flag ${c.ownRatio.toFixed(3)} (target >= 0.95)`,
    )
  }
  if (node === null) log('node not found: the Node rows are missing')
  const nodeFigures = node === null ? null : compared[0]!
  const bunFigures = compared[compared.length - 1]!

  // 2. 10 vs 10,000 flags loaded.
  const MANY = 10_000
  const small = createClient({ bootstrap: definitions(Array.from({ length: 10 }, (_, n) => flag(`flag-${n}`))) })
  const large = createClient({ bootstrap: definitions(Array.from({ length: MANY }, (_, n) => flag(`flag-${n}`))) })
  // The same 10 keys in both (what "loaded" costs); then 1,024 different keys out of the 10,000 (what
  // touching many distinct flags costs: their compiled closures no longer fit in the CPU caches).
  const tenKeys = Array.from({ length: 1024 }, (_, n) => `flag-${(n * 7) % 10}`)
  const spreadKeys = Array.from({ length: 1024 }, (_, n) => `flag-${(n * 7919) % MANY}`)
  const size = rounds({
    ten: (i) => small.evaluate(tenKeys[i & 1023]!, ours[i]!).value === true,
    many: (i) => large.evaluate(tenKeys[i & 1023]!, ours[i]!).value === true,
    spread: (i) => large.evaluate(spreadKeys[i & 1023]!, ours[i]!).value === true,
  })
  log(`SDK, 10 flags loaded:     ${fmtInt(size.ten!)} evals/s`)
  log(
    `SDK, ${fmtInt(MANY)} flags loaded: ${fmtInt(size.many!)} evals/s ` +
      `(${((size.many! / size.ten! - 1) * 100).toFixed(1)}%), the same 10 keys`,
  )
  log(
    `SDK, ${fmtInt(MANY)} flags, 1,024 keys in turn: ${fmtInt(size.spread!)} evals/s ` +
      `(${((size.spread! / size.ten! - 1) * 100).toFixed(1)}%)`,
  )

  // 3. Bundle sizes (built in 1).
  const s = sizes()
  log(
    `browser bundle:           ${(s.upFront / 1024).toFixed(1)} kB up front, ` +
      `${(s.onDemand / 1024).toFixed(1)} kB regex chunk on demand (min+gzip)`,
  )

  // 4. Change to served, through the stream.
  const srv = await startFlagServer('server (sdk freshness)')
  const put = (value: number) =>
    fetch(`${srv.url}/api/v1/flags/fresh`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${srv.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ value }),
    })
  await (
    await fetch(`${srv.url}/api/v1/flags`, {
      method: 'POST',
      headers: { authorization: `Bearer ${srv.token}`, 'content-type': 'application/json' },
      body: '{"key":"fresh","enabled":true,"value":0}',
    })
  ).text()
  const live = createClient({ url: srv.url, token: srv.token })
  await live.ready()
  const delays: number[] = []
  for (let v = 1; v <= CHANGES; v++) {
    const start = performance.now()
    await (await put(v)).text()
    while (live.evaluate('fresh').value !== v) {
      if (performance.now() - start > 5000) throw new Error(`change ${v} not served within 5 s`)
      await Bun.sleep(0)
    }
    delays.push(performance.now() - start)
    await Bun.sleep(20)
  }
  await live.close()
  await srv.stop()
  const sorted = [...delays].sort((a, b) => a - b)
  const changeP50 = median(sorted)
  const changeMax = sorted[sorted.length - 1]!
  log(`change -> served (stream): p50 ${fmtMs(changeP50)}, max ${fmtMs(changeMax)} over ${CHANGES} PUTs (clock starts before the PUT)`)
  if (sink === -1) log('')
  return {
    node: nodeFigures,
    bun: bunFigures,
    tenFlags: size.ten!,
    manyFlags: size.many!,
    manyFlagsCount: MANY,
    spreadFlags: size.spread!,
    upFrontBytes: s.upFront,
    regexBytes: s.onDemand,
    changeP50,
    changeMax,
  }
}

if (import.meta.main) {
  try {
    const figures = await benchSdk()
    console.log(`SDK_FIGURES ${JSON.stringify(figures)}`)
  } finally {
    clearTimeout(watchdog)
    cleanup()
    process.exit(process.exitCode ?? 0)
  }
}
