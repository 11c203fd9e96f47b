// flagship-sdk in process (issue: "the SDK's evaluate against @openfeature/flagd-core"). Run by
// bench/run.ts (pinned to one CPU); alone: `bun bench/sdk.ts`. Prints readable lines, then one
// `SDK_FIGURES {json}` line for run.ts.
//   1. The same flag (a rule on `plan`, then a 50 % rollout on `user_id`) over the same 100,000 contexts:
//      the SDK's evaluate vs flagd-core's resolveBooleanEvaluation, interleaved rounds, medians; the ratio.
//   2. The SDK's evaluate with 10 vs 10,000 flags loaded (same flag shape, keys spread over the map).
//   3. The browser bundle (npm run build:sdk): min+gzip of the up-front entry and of the regex chunk.
//   4. A change (PUT on a real server) to the SDK serving it through the stream: p50 / max over 20 changes.
import { FlagdCore } from '@openfeature/flagd-core'
import { buildSdk, sizes } from '../sdk/build'
import { createClient, type Definitions, type StoredFlag } from '../sdk/src'
import { cleanup, fmtInt, fmtMs, median, startFlagServer, watchdog } from './lib'

const CONTEXTS = 100_000
const ROUNDS = Number(process.env.BENCH_SDK_ROUNDS ?? 5)
const CHANGES = 20

export interface SdkFigures {
  sdkPerSecond: number
  flagdPerSecond: number
  ratio: number
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
  key, enabled: true, value: false,
  targeting: { rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'pro' }], value: true }], rollout: { percentage: 50, attribute: 'user_id' } },
})
const FLAGD_FLAG = {
  state: 'ENABLED', variants: { on: true, off: false }, defaultVariant: 'off',
  targeting: { if: [{ '==': [{ var: 'plan' }, 'pro'] }, 'on', { fractional: [{ var: 'targetingKey' }, ['on', 50], ['off', 50]] }] },
}
const definitions = (flags: StoredFlag[]): Definitions => ({ version: 1, environments: [], flags, configs: [], segments: [] })

// The same users for both: ours name the id `user_id`, OpenFeature's `targetingKey`.
const PLANS = ['free', 'pro', 'team', 'free']
const ours = Array.from({ length: CONTEXTS }, (_, i) => ({ user_id: `user-${i}`, plan: PLANS[i % 4]! }))
const theirs = ours.map((c) => ({ targetingKey: c.user_id, plan: c.plan }))

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
  // 1. SDK vs flagd-core, the same flag and contexts.
  const sdk = createClient({ bootstrap: definitions([flag('checkout')]) })
  const flagd = new FlagdCore()
  flagd.setConfigurations(JSON.stringify({ flags: { checkout: FLAGD_FLAG } }))
  const agreeOnRule = ours.every((c, i) => c.plan !== 'pro' || (sdk.evaluate('checkout', c).value === true && flagd.resolveBooleanEvaluation('checkout', false, theirs[i]!).value === true))
  if (!agreeOnRule) throw new Error('the SDK and flagd-core disagree on the rule')
  const head = rounds({
    sdk: (i) => sdk.evaluate('checkout', ours[i]!).value === true,
    flagd: (i) => flagd.resolveBooleanEvaluation('checkout', false, theirs[i]!).value,
  })
  const ratio = head.sdk! / head.flagd!
  log(`SDK evaluate:             ${fmtInt(head.sdk!)} evals/s (${fmtInt(CONTEXTS)} contexts, median of ${ROUNDS} rounds)`)
  log(`flagd-core resolve:       ${fmtInt(head.flagd!)} evals/s`)
  log(`SDK / flagd-core:         ${ratio.toFixed(2)}x`)

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
  log(`SDK, ${fmtInt(MANY)} flags loaded: ${fmtInt(size.many!)} evals/s (${((size.many! / size.ten! - 1) * 100).toFixed(1)}%), the same 10 keys`)
  log(`SDK, ${fmtInt(MANY)} flags, 1,024 keys in turn: ${fmtInt(size.spread!)} evals/s (${((size.spread! / size.ten! - 1) * 100).toFixed(1)}%)`)

  // 3. Bundle sizes.
  await buildSdk()
  const s = sizes()
  log(`browser bundle:           ${(s.upFront / 1024).toFixed(1)} kB up front, ${(s.onDemand / 1024).toFixed(1)} kB regex chunk on demand (min+gzip)`)

  // 4. Change to served, through the stream.
  const srv = await startFlagServer('server (sdk freshness)')
  const put = (value: number) => fetch(`${srv.url}/api/v1/flags/fresh`, { method: 'PUT', headers: { authorization: `Bearer ${srv.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ value }) })
  await (await fetch(`${srv.url}/api/v1/flags`, { method: 'POST', headers: { authorization: `Bearer ${srv.token}`, 'content-type': 'application/json' }, body: '{"key":"fresh","enabled":true,"value":0}' })).text()
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
    sdkPerSecond: head.sdk!, flagdPerSecond: head.flagd!, ratio, tenFlags: size.ten!, manyFlags: size.many!, manyFlagsCount: MANY, spreadFlags: size.spread!,
    upFrontBytes: s.upFront, regexBytes: s.onDemand, changeP50, changeMax,
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
