// In-process benchmark of the evaluation engine (no HTTP, no store). Run: bun bench/engine.ts
// Prints plain lines such as `engine simple flag: 12,345,678 evals/s`.
import { compileFlag, type CompiledFlag, type EvaluationContext, type FlagDefinition, type SegmentDefinition } from '../server/engine'
import { BETA_SEGMENT, benchFlag, variantChainFlags } from './fixtures'

const segments = new Map<string, SegmentDefinition>([
  ['beta', BETA_SEGMENT],
])

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

// 5 variants by weight behind a 3-deep prerequisite chain: each evaluation walks the chain (3 more flags).
const chain = new Map<string, CompiledFlag>()
for (const f of variantChainFlags('variants')) chain.set(f.key, compileFlag(f, segments, (k) => chain.get(k)))
const variantsFlag = chain.get('variants')!
if (variantsFlag.evaluate(CONTEXTS[0]!).reason !== 'rollout') throw new Error('the variants flag must end in its split')
rate('5 variants + 3-deep prerequisites', 1, (i) => {
  sink += variantsFlag.evaluate(CONTEXTS[i & MASK]!).reason.length
})

const hundred: CompiledFlag[] = Array.from({ length: 100 }, (_, n) =>
  compileFlag({ ...(n % 2 ? targeted : simple), key: `flag-${n}` }, segments))
rate('100 flags per context (flags evaluated)', 100, (i) => {
  const ctx = CONTEXTS[i & MASK]!
  for (let n = 0; n < hundred.length; n++) sink += hundred[n]!.evaluate(ctx).reason.length
}, 2)

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

if (sink === 42) console.log('') // keep `sink` observable
