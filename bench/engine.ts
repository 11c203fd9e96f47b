// In-process benchmark of the evaluation engine (no HTTP, no store). Run: bun bench/engine.ts
// Prints plain lines such as `engine simple flag: 12,345,678 evals/s`.
import {
  compileFlag,
  EvaluationBudgetExceeded,
  type CompiledFlag,
  type EvaluationContext,
  type FlagDefinition,
  type SegmentDefinition,
} from '../server/engine'
import { BETA_SEGMENT, benchFlag, ownRulesFlag, variantChainFlags } from './fixtures'

const segments = new Map<string, SegmentDefinition>([['beta', BETA_SEGMENT]])

// Contexts vary per iteration so nothing is trivially constant-folded and rollout buckets differ.
const CONTEXTS: EvaluationContext[] = Array.from({ length: 1024 }, (_, i) => ({
  user_id: `user-${i}`,
  plan: i % 3 === 0 ? 'pro' : 'free',
  environment: i % 2 ? 'production' : 'staging',
  custom: { country: ['us', 'de', 'fr', 'jp'][i % 4]!, app_version: `1.${i % 20}.0`, email: `u${i}@example.com` },
}))
const MASK = CONTEXTS.length - 1

const simple: FlagDefinition = { key: 'simple', enabled: true, value: true }
const targeted = benchFlag('targeted')

let sink = 0 // consumed results, so the loop cannot be optimised away

function rate(name: string, evalsPerIteration: number, body: (i: number) => void, seconds = 1): void {
  for (let i = 0; i < 200_000; i++) body(i) // warm-up: let the JIT optimise
  let iterations = 0
  const start = performance.now()
  const deadline = start + seconds * 1000
  let now = start
  while (now < deadline) {
    for (let i = 0; i < 10_000; i++) body(iterations + i)
    iterations += 10_000
    now = performance.now()
  }
  const perSecond = Math.round((iterations * evalsPerIteration) / ((now - start) / 1000))
  console.log(`engine ${name}: ${perSecond.toLocaleString('en-US')} evals/s`)
}

const simpleFlag = compileFlag(simple, segments)
rate('simple flag', 1, (i) => {
  sink += simpleFlag.evaluate(CONTEXTS[i & MASK]!).reason.length
})

const targetedFlag = compileFlag(targeted, segments)
rate('3 rules + rollout', 1, (i) => {
  sink += targetedFlag.evaluate(CONTEXTS[i & MASK]!).reason.length
})

// The same rules and rollout as production's own: contexts in production take them, the others the flag's.
const inProduction = CONTEXTS.map((c) => ({ ...c, environment: 'production' }))
const ownFlag = compileFlag(ownRulesFlag('targeted'), segments)
rate("3 rules + rollout, all contexts in production (flag's rules)", 1, (i) => {
  sink += targetedFlag.evaluate(inProduction[i & MASK]!).reason.length
})
rate("3 rules + rollout as production's own rules", 1, (i) => {
  sink += ownFlag.evaluate(inProduction[i & MASK]!).reason.length
})

// 5 variants by weight behind a 3-deep prerequisite chain: each evaluation walks the chain (3 more flags).
const chain = new Map<string, CompiledFlag>()
for (const f of variantChainFlags('variants'))
  chain.set(
    f.key,
    compileFlag(f, segments, (k) => chain.get(k)),
  )
const variantsFlag = chain.get('variants')!
if (variantsFlag.evaluate(CONTEXTS[0]!).reason !== 'rollout') throw new Error('the variants flag must end in its split')
rate('5 variants + 3-deep prerequisites', 1, (i) => {
  sink += variantsFlag.evaluate(CONTEXTS[i & MASK]!).reason.length
})

const hundred: CompiledFlag[] = Array.from({ length: 100 }, (_, n) =>
  compileFlag({ ...(n % 2 ? targeted : simple), key: `flag-${n}` }, segments),
)
rate(
  '100 flags per context (flags evaluated)',
  100,
  (i) => {
    const ctx = CONTEXTS[i & MASK]!
    for (let n = 0; n < hundred.length; n++) sink += hundred[n]!.evaluate(ctx).reason.length
  },
  2,
)

function lookupBench(size: number): void {
  const flags = new Map<string, CompiledFlag>()
  for (let n = 0; n < size; n++) flags.set(`flag-${n}`, compileFlag({ ...simple, key: `flag-${n}` }, segments))
  const keys = Array.from({ length: 1024 }, (_, n) => `flag-${(n * 7919) % size}`)
  rate(`map lookup + simple flag (${size.toLocaleString('en-US')} flags)`, 1, (i) => {
    sink += flags.get(keys[i & MASK]!)!.evaluate(CONTEXTS[i & MASK]!).reason.length
  })
}
lookupBench(10)
lookupBench(10_000)

// The worst flag and context the limits allow (docs/behaviour.md §8, "Cost and usage"): 60 rules, each one
// pattern as costly as the flag's pattern total allows, against attribute values of every length up to
// 1 MiB; the slowest median per evaluation (ending in the work budget's refusal or not) against an ordinary
// flag's evaluation (3 rules + rollout). Before the budget a 24 kB value took seconds.
function worstAllowed(): void {
  const ordinaryCtx = CONTEXTS[0]!
  const ordinaryTimes: number[] = []
  for (let r = 0; r < 9; r++) {
    const t = performance.now()
    for (let i = 0; i < 10_000; i++) sink += targetedFlag.evaluate(CONTEXTS[i & MASK]!).reason.length
    ordinaryTimes.push((performance.now() - t) / 10_000)
  }
  sink += targetedFlag.evaluate(ordinaryCtx).reason.length
  let worst = { ms: 0, what: '' }
  for (const pattern of ['(?:a?){50}a{50}b', '(\\w+\\s?)*\\d$', '(?:a|aa){50}b']) {
    const flag = compileFlag(
      {
        key: 'worst',
        enabled: true,
        value: false,
        targeting: {
          rules: Array.from({ length: 60 }, () => ({
            conditions: [{ property: 'text', operator: 'matches' as const, value: pattern }],
            value: true,
          })),
        },
      },
      segments,
    )
    for (const length of [60, 600, 6_000, 24_000, 1 << 20]) {
      const ctx = { custom: { text: 'a'.repeat(length) } }
      const times: number[] = []
      for (let r = 0; r < 9; r++) {
        const t = performance.now()
        try {
          sink += flag.evaluate(ctx).reason.length
        } catch (e) {
          if (!(e instanceof EvaluationBudgetExceeded)) throw e
        }
        times.push(performance.now() - t)
      }
      const ms = times.sort((a, b) => a - b)[4]!
      if (ms > worst.ms) worst = { ms, what: `${pattern} on ${length.toLocaleString('en-US')} characters` }
    }
  }
  const ordinary = ordinaryTimes.sort((a, b) => a - b)[4]!
  console.log(
    `engine worst allowed flag: ${(worst.ms * 1000).toFixed(1)} us per evaluation vs ordinary ${(ordinary * 1000).toFixed(2)} us ` +
      `(${Math.round(worst.ms / ordinary).toLocaleString('en-US')}x; ${worst.what})`,
  )
}
worstAllowed()

if (sink === 42) console.log('') // keep `sink` observable
