// `convert --from flagd` (docs/migration.md): flagd flag definition files as one Flagship document.
// Each flagd flag is a flag with variants (flagd's variants, renamed only when a name does not fit ours):
// `state` is `enabled`, `defaultVariant` is `default_variant`, and the targeting (JsonLogic, with the
// shared `$evaluators` substituted as flagd does) becomes rules: an `if` chain is read in order, each
// branch a rule per alternative of its condition (flagd-jsonlogic.ts), nested `if`s AND-ed with the
// branch they sit in. A `fractional` split reached only through else-branches (nothing after it) is
// the flag's rollout. What flagd answers with the caller's default (no default variant, a missing
// variant) is the variant `code-default`, valued null. Everything that is not exact is reported.
import type { Json, Rollout, Rule } from '../../engine'
import type { FlagEntry, FlagshipDocument } from '../model'
import { and, freeKey, keyOf, SegmentMaker, TooComplex, TRUE, type Dnf } from './logic'
import { conditionDnf, MAX_DEPTH, Unmapped, varName, type LogicNotes } from './flagd-jsonlogic'
import { ConvertError } from './errors'
import { isObject } from '../../engine/is-object'

/** How large a file may grow while its `$ref`s are substituted: evaluators that refer to each other twice
 *  over double at each level (a 1.3 kB file would need gigabytes); the import refuses documents past
 *  10 MiB anyway. */
export const MAX_EXPANDED_CHARS = 10 * 1024 * 1024

const occurrences = (text: string, needle: string): number => {
  let n = 0
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) n++
  return n
}

/** flagd's own substitution (flagd-core's transform): every `{"$ref":"name"}` replaced by the evaluator.
 *  Refused (ConvertError) before it would grow past MAX_EXPANDED_CHARS. */
function substitute(file: Record<string, unknown>, fileName: string): Record<string, unknown> {
  const evaluators = file.$evaluators
  if (!isObject(evaluators)) return file
  let text = JSON.stringify(file)
  for (const [name, logic] of Object.entries(evaluators)) {
    const ref = `{"$ref":${JSON.stringify(name)}}`
    const body = JSON.stringify(logic) ?? 'null'
    const grown = text.length + occurrences(text, ref) * (body.length - ref.length)
    if (grown > MAX_EXPANDED_CHARS) {
      throw new ConvertError(
        `${fileName}: substituting $evaluators (${JSON.stringify(name).slice(0, 80)} and those it refers to) would grow the file ` +
          `past ${MAX_EXPANDED_CHARS} characters; evaluators that refer to each other several times over expand exponentially`,
      )
    }
    text = text.replaceAll(ref, body)
  }
  return JSON.parse(text) as Record<string, unknown>
}

interface FlagPlan {
  rules: { guard: Dnf; variant: string }[]
  rollout: { weights: { variant: string; weight: number }[]; attribute: string } | null
}

/** Reads an `if` chain (or a single result) into ordered rules; `guard` is the branch it sits in. */
function readResult(node: unknown, guard: Dnf, plan: FlagPlan, notes: LogicNotes, variantOf: (r: unknown) => string, depth = 0): void {
  if (depth > MAX_DEPTH) throw new Unmapped(`if nested deeper than ${MAX_DEPTH}`)
  if (isObject(node) && 'if' in node && Object.keys(node).length === 1) {
    const args = Array.isArray(node.if) ? node.if : [node.if]
    for (let i = 0; i + 1 < args.length; i += 2) {
      const cond = conditionDnf(args[i], notes)
      readResult(args[i + 1], and(guard, cond), plan, notes, variantOf, depth + 1)
      if (cond.length === 1 && cond[0]!.length === 0) return // always true: the rest is never reached
    }
    // The else branch (absent or null: the default variant).
    readResult(args.length % 2 === 1 ? args[args.length - 1] : null, guard, plan, notes, variantOf, depth + 1)
    return
  }
  if (isObject(node) && 'fractional' in node && Object.keys(node).length === 1) {
    // Only where nothing can come after it: its guard is "everyone left".
    if (!(guard.length === 1 && guard[0]!.length === 0))
      throw new Unmapped('fractional is only converted as the last else branch (a flag has one rollout, after its rules)')
    const args = Array.isArray(node.fractional) ? [...node.fractional] : []
    let attribute = 'user_id' // flagd buckets by flag key + targetingKey by default
    if (!Array.isArray(args[0])) {
      const v = varName(args.shift())
      if (v === undefined) throw new Unmapped('fractional buckets by an expression that is not an attribute')
      attribute = v
    }
    const weights = args.map((b) => {
      if (!Array.isArray(b) || b.length < 1 || b.length > 2 || (b.length === 2 && !Number.isInteger(b[1])))
        throw new Unmapped('a fractional bucket must be [variant, integer weight]')
      return { variant: variantOf(b[0]), weight: b.length === 2 ? Math.max(0, b[1] as number) : 1 }
    })
    if (weights.reduce((a, w) => a + w.weight, 0) <= 0) throw new Unmapped('fractional weights add up to 0')
    plan.rollout = { weights, attribute }
    return
  }
  plan.rules.push({ guard, variant: variantOf(node) })
}

function distribution(weights: { variant: string; weight: number }[]): { slices: NonNullable<Rollout['distribution']>; exact: boolean } {
  const total = weights.reduce((a, w) => a + w.weight, 0)
  const slices: NonNullable<Rollout['distribution']> = []
  let cum = 0
  let prev = 0
  let exact = true
  for (const w of weights) {
    cum += w.weight
    const bound = Math.round((10000 * cum) / total)
    if ((10000 * cum) % total !== 0) exact = false
    if (bound > prev) slices.push({ variant: w.variant, weight: (bound - prev) / 100 })
    prev = bound
  }
  return { slices, exact }
}

export function convertFlagd(files: { name: string; json: unknown }[]): { document: FlagshipDocument; report: string[] } {
  const report: string[] = []
  const keys = new Set<string>()
  const maker = new SegmentMaker(new Set())
  const flags: FlagEntry[] = []
  const notes: LogicNotes = { loose: false, semver: false }
  const split: string[] = []
  // flagd merges its sources, a later one replacing a flag an earlier one defined.
  const defs = new Map<string, unknown>()
  for (const { name, json } of files) {
    if (!isObject(json) || !isObject(json.flags))
      throw new ConvertError(`${name}: not a flagd flag definition file (an object with "flags")`)
    const file = substitute(json, name)
    if (isObject(json.metadata) && Object.keys(json.metadata).length > 0)
      report.push(`${name}: metadata (${Object.keys(json.metadata).join(', ')}) is not converted`)
    for (const [flagKey, def] of Object.entries(file.flags as Record<string, unknown>)) {
      if (defs.has(flagKey)) report.push(`flag ${flagKey}: defined again in ${name}, which replaces the earlier definition (as in flagd)`)
      defs.set(flagKey, def)
    }
  }
  for (const [flagKey, def] of defs) {
    const say = (m: string) => report.push(`flag ${flagKey}: ${m}`)
    if (!isObject(def) || !isObject(def.variants) || (def.state !== 'ENABLED' && def.state !== 'DISABLED')) {
      say('not converted: it needs a state (ENABLED or DISABLED) and variants')
      continue
    }
    const key = freeKey(keyOf(flagKey), keys)
    if (key !== flagKey) say(`renamed ${key} (flag keys are letters, digits, . _ -)`)
    if (isObject(def.metadata) && Object.keys(def.metadata).length > 0)
      say(`metadata (${Object.keys(def.metadata).join(', ')}) is not converted`)
    const names = new Map<string, string>()
    const taken = new Set<string>()
    const variants: Record<string, Json> = {}
    for (const [v, value] of Object.entries(def.variants)) {
      const k = freeKey(keyOf(v), taken)
      if (k !== v) say(`variant ${v} renamed ${k}`)
      names.set(v, k)
      variants[k] = value as Json
    }
    const types = new Set(
      Object.values(variants)
        .filter((v) => v !== null)
        .map((v) => (Array.isArray(v) ? 'array' : typeof v)),
    )
    if (types.size > 1) {
      keys.delete(key)
      say(`not converted: its variants mix value types (${[...types].join(', ')}); a flag's variants share one`)
      continue
    }
    let codeDefault: string | undefined
    const callerDefault = () => {
      if (codeDefault === undefined) {
        codeDefault = freeKey('code-default', taken)
        variants[codeDefault] = null
      }
      return codeDefault
    }
    const hasDefault = typeof def.defaultVariant === 'string' && names.has(def.defaultVariant)
    const defaultName = hasDefault ? names.get(def.defaultVariant as string)! : callerDefault()
    if (!hasDefault) {
      const why =
        def.defaultVariant == null
          ? "no default variant: flagd answers the caller's default"
          : `default variant ${def.defaultVariant} does not exist: flagd refuses the flag`
      say(`${why}; here the variant ${defaultName} (null) is served instead`)
    }
    // A targeting result names a variant (flagd turns booleans and numbers into their text); null is
    // the default; an unknown name is an error in flagd, answered with the caller's default.
    const variantOf = (r: unknown): string => {
      if (r === null || r === undefined) return defaultName
      if (isScalar(r) && names.has(String(r))) return names.get(String(r))!
      if (isScalar(r)) {
        say(
          `targeting can answer ${JSON.stringify(r)}, which is no variant (flagd: an error, the caller's default); ` +
            `here the variant ${callerDefault()} (null)`,
        )
        return callerDefault()
      }
      throw new Unmapped(`a targeting result ${JSON.stringify(r)?.slice(0, 80)} that is not a variant name`)
    }
    const plan: FlagPlan = { rules: [], rollout: null }
    const targeting = def.targeting
    // A $ref left after substitution names no evaluator: flagd refuses the targeting, and answers every
    // evaluation with an error (the caller's default); a disabled flag answers the same.
    if (JSON.stringify(targeting ?? null).includes('{"$ref":')) {
      say(
        'targeting refers to an evaluator that does not exist, so flagd answers every evaluation with an error ' +
          "(the caller's default); here the flag is disabled",
      )
      flags.push({ key, enabled: false, value: variants[defaultName]!, variants, default_variant: defaultName })
      continue
    }
    try {
      if (isObject(targeting) && Object.keys(targeting).length > 0) readResult(targeting, TRUE, plan, notes, variantOf)
    } catch (e) {
      if (!(e instanceof Unmapped || e instanceof TooComplex)) throw e
      say(`targeting not converted (${e.message}): everyone gets the default variant`)
      plan.rules = []
      plan.rollout = null
    }
    // Trailing rules that serve the default add nothing when no rollout follows them.
    if (plan.rollout === null) while (plan.rules.length > 0 && plan.rules.at(-1)!.variant === defaultName) plan.rules.pop()
    const rules: Rule[] = []
    for (const r of plan.rules) for (const conj of r.guard) rules.push({ conditions: maker.conditions(conj, key), variant: r.variant })
    const flag: FlagEntry = { key, enabled: def.state === 'ENABLED', value: variants[defaultName]!, variants, default_variant: defaultName }
    if (plan.rollout) {
      const d = distribution(plan.rollout.weights)
      if (!d.exact)
        say(
          `fractional weights ${plan.rollout.weights.map((w) => w.weight).join(':')} are kept to 0.01 % ` +
            `(${d.slices.map((s) => s.weight).join(' / ')})`,
        )
      // flagd answers the default variant to a context it cannot bucket; ours answers the off value.
      if (flag.enabled) flag.off_variant = defaultName
      split.push(flagKey)
      flag.targeting = { rules, rollout: { distribution: d.slices, attribute: plan.rollout.attribute } }
    } else if (rules.length > 0) flag.targeting = { rules }
    flags.push(flag)
  }
  if (notes.loose)
    report.push(
      '==, != and <, <=, >, >= coerce in flagd: a number or boolean in the context compared with a text, ' +
        "and a text that is no number (or blank) compared with a number (an error in flagd: the caller's default), " +
        'are not answered the same here',
    )
  if (notes.semver)
    report.push(
      'sem_ver reads partial versions ("1.2") and numbers as versions in flagd; ' +
        'here the attribute must be a full version (a leading v is fine)',
    )
  if (split.length > 0)
    report.push(
      `fractional splits (${split.join(', ')}): flagd and Flagship hash users differently ` +
        '(flagd: murmur3 of flag key + targetingKey), so the shares are kept but which users get which variant is not',
    )
  return { document: { flagship: 1, segments: maker.made, flags }, report }
}

const isScalar = (v: unknown): v is string | number | boolean => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'
