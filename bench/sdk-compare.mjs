// The SDK head to head, in one process of whichever runtime runs this file: Node (where most applications
// run the SDK) or Bun. Plain JavaScript so that Node runs it as it is, against the built SDK (sdk/dist, from
// `npm run build:sdk`) as an application would import it. Run by bench/sdk.ts on both runtimes; alone:
// `npm run build:sdk && node bench/sdk-compare.mjs` (or `bun bench/sdk-compare.mjs`).
//
// The same flag (a rule on `plan`, then a 50 % rollout on `user_id` serving true) over the same 100,000
// contexts, evaluated by
//   sdk:   flagship-sdk's evaluate (usage counting included, as applications run it)
//   flagd: @openfeature/flagd-core's resolveBooleanEvaluation of the equivalent flagd flag
//   hand:  a hand-written evaluator of that one flag (the rule, then murmur3 of `checkout:<id>` inline):
//          what a generic engine cannot beat by much
// in interleaved rounds after a warm-up; each figure is the median over rounds. Then the same rules as
// production's own (environments.production.targeting, docs/behaviour.md §4) against the flag's, both for
// the same contexts in production (own / flag: `ownRatio`). Prints one `COMPARE {json}` line.
import { FlagdCore } from '@openfeature/flagd-core'
import { createClient } from '../sdk/dist/index.js'

const CONTEXTS = 100_000
const ROUNDS = Number(process.env.BENCH_SDK_ROUNDS ?? 7)

const FLAG = {
  key: 'checkout',
  enabled: true,
  value: true,
  targeting: {
    rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'pro' }], value: true }],
    rollout: { percentage: 50, attribute: 'user_id' },
  },
}
const FLAGD_FLAG = {
  state: 'ENABLED',
  variants: { on: true, off: false },
  defaultVariant: 'off',
  targeting: { if: [{ '==': [{ var: 'plan' }, 'pro'] }, 'on', { fractional: [{ var: 'targetingKey' }, ['on', 50], ['off', 50]] }] },
}

// The same users for all: ours name the id `user_id`, OpenFeature's `targetingKey`.
const PLANS = ['free', 'pro', 'team', 'free']
const ours = Array.from({ length: CONTEXTS }, (_, i) => ({ user_id: `user-${i}`, plan: PLANS[i % 4] }))
const theirs = ours.map((c) => ({ targetingKey: c.user_id, plan: c.plan }))

/** MurmurHash3 x86 32-bit of an ASCII string, seed 0: the hand-written evaluator's hash. */
function murmurAscii(s) {
  const n = s.length
  const blocks = n & ~3
  let h = 0
  let i = 0
  for (; i < blocks; i += 4) {
    let k = s.charCodeAt(i) | (s.charCodeAt(i + 1) << 8) | (s.charCodeAt(i + 2) << 16) | (s.charCodeAt(i + 3) << 24)
    k = Math.imul(k, 0xcc9e2d51)
    k = (k << 15) | (k >>> 17)
    k = Math.imul(k, 0x1b873593)
    h ^= k
    h = (h << 13) | (h >>> 19)
    h = (Math.imul(h, 5) + 0xe6546b64) | 0
  }
  let k = 0
  switch (n & 3) {
    case 3:
      k ^= s.charCodeAt(i + 2) << 16 // falls through
    case 2:
      k ^= s.charCodeAt(i + 1) << 8 // falls through
    case 1:
      k ^= s.charCodeAt(i)
      k = Math.imul(k, 0xcc9e2d51)
      k = (k << 15) | (k >>> 17)
      k = Math.imul(k, 0x1b873593)
      h ^= k
  }
  h ^= n
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
}
const hand = (c) => c.plan === 'pro' || (murmurAscii(`checkout:${c.user_id}`) % 10000) / 100 < 50

const sdk = createClient({ bootstrap: { version: 1, environments: ['production'], flags: [FLAG], configs: [], segments: [] } })
// The same rules as production's own (the flag's own targeting none), and the contexts in production.
const OWN_FLAG = { key: 'checkout', enabled: true, value: true, environments: { production: { enabled: true, targeting: FLAG.targeting } } }
const sdkOwn = createClient({ bootstrap: { version: 1, environments: ['production'], flags: [OWN_FLAG], configs: [], segments: [] } })
// Built as an application builds a context (one object literal), not as `{ ...c, environment }`: a spread
// copy keeps its added field out of line, and reading it from 100,000 such objects measured the memory
// latency of this table rather than the evaluation (both sides alike, but swamping the difference).
const inProduction = ours.map((c) => ({ user_id: c.user_id, plan: c.plan, environment: 'production' }))
const flagd = new FlagdCore()
flagd.setConfigurations(JSON.stringify({ flags: { checkout: FLAGD_FLAG } }))

// All three must answer alike, and the rollout must really split (a quarter is `pro`; half the rest is in).
let served = 0
for (let i = 0; i < CONTEXTS; i++) {
  const mine = sdk.evaluate('checkout', ours[i]).value
  if (mine !== hand(ours[i])) throw new Error(`the SDK and the hand-written evaluator disagree on ${ours[i].user_id}`)
  if (ours[i].plan === 'pro' && flagd.resolveBooleanEvaluation('checkout', false, theirs[i]).value !== true)
    throw new Error('flagd-core disagrees on the rule')
  if (mine === true) served++
}
const share = served / CONTEXTS
for (let i = 0; i < CONTEXTS; i++) {
  const own = sdkOwn.evaluate('checkout', inProduction[i])
  if (own.value !== hand(ours[i]) || own.reason === 'default') throw new Error(`production's own rules disagree on ${ours[i].user_id}`)
}
if (share < 0.6 || share > 0.65)
  throw new Error(`the rollout does not split: ${(share * 100).toFixed(1)} % served true (expected about 62.5 %)`)

let sink = 0
function pass(run) {
  // CPU time of this process, not wall time: on a shared machine, time another process takes from this one
  // between two readings of the clock is not the evaluator's.
  const start = process.cpuUsage()
  for (let i = 0; i < CONTEXTS; i++) if (run(i)) sink++
  const used = process.cpuUsage(start)
  return CONTEXTS / ((used.user + used.system) / 1e6)
}
const runs = {
  sdk: (i) => sdk.evaluate('checkout', ours[i]).value === true,
  flagd: (i) => flagd.resolveBooleanEvaluation('checkout', false, theirs[i]).value,
  hand: (i) => hand(ours[i]),
  flagRules: (i) => sdk.evaluate('checkout', inProduction[i]).value === true,
  ownRules: (i) => sdkOwn.evaluate('checkout', inProduction[i]).value === true,
}
for (const run of Object.values(runs)) pass(run), pass(run) // warm-up: let the JIT settle
const rates = { sdk: [], flagd: [], hand: [], flagRules: [], ownRules: [] }
for (let r = 0; r < ROUNDS; r++) for (const [name, run] of Object.entries(runs)) rates[name].push(Math.max(pass(run), pass(run)))
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}
const m = Object.fromEntries(Object.entries(rates).map(([name, xs]) => [name, median(xs)]))
// The per-round ratios too: rounds are interleaved, so a ratio within a round is the least disturbed.
const perRound = (a, b) => median(rates[a].map((x, i) => x / rates[b][i]))
const runtime = typeof Bun !== 'undefined' ? `bun ${Bun.version}` : `node ${process.version.slice(1)}`
const figures = {
  runtime,
  rounds: ROUNDS,
  contexts: CONTEXTS,
  servedTrue: share,
  sdk: m.sdk,
  flagd: m.flagd,
  hand: m.hand,
  ratio: perRound('sdk', 'flagd'),
  handRatio: perRound('sdk', 'hand'),
  flagRules: m.flagRules,
  ownRules: m.ownRules,
  ownRatio: perRound('ownRules', 'flagRules'),
  sink: sink > 0,
}
console.log(`COMPARE ${JSON.stringify(figures)}`)
sdk.close()
sdkOwn.close()
