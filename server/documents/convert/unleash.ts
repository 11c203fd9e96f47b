// `convert --from unleash` (docs/migration.md): each environment's export plus Unleash's segment list
// as one Flagship document. One Unleash feature is one flag:
// - an environment's enablement is the flag's environment override (the flag itself is off elsewhere);
// - its strategies (OR-ed in Unleash) are that environment's own rules (environments.<env>.targeting),
//   one rule per alternative of the strategy's constraints and segments (constraint mapping:
//   unleash-constraints.ts);
// - each environment's rules have one rollout, after the rules: its first partial rollout or weighted
//   variant split becomes it (a second one is reported, not converted). A partial rollout with constraints
//   gets a rule before it that serves off to whoever does not meet them; a boolean flag's environment
//   without a rollout ends with a rule that serves off.
// - variants are the strategy variants (payload as value); `off` (null) is what an off flag serves, and
//   `on` (null) what a strategy without variants serves in a flag with variants.
// Everything that is not exact goes to the report.
import type { Condition, EnvironmentOverride, Json, Rule, Rollout } from '../../engine'
import type { FlagEntry, FlagshipDocument, SegmentEntry } from '../model'
import { freeKey, keyOf, not, SegmentMaker, tagOf, TooComplex, type Dnf } from './logic'
import { constraintsDnf, strategyPiece, type Piece, type SegmentRef, type Serve } from './unleash-strategy'
import { readUnleashFiles, type UnleashExport, type UnleashFeature, type UnleashVariant } from './unleash-input'
import { unleashPrerequisites, type ConvertedFlag } from './unleash-dependencies'

function payloadValue(v: UnleashVariant, say: (m: string) => void): Json {
  const p = v.payload
  if (!p) return null
  if (p.type === 'json') {
    try {
      return JSON.parse(p.value) as Json
    } catch {
      say(`variant ${v.name}: its JSON payload does not parse; kept as a string`)
      return p.value
    }
  }
  if (p.type === 'number' && Number.isFinite(Number(p.value))) return Number(p.value)
  return p.value
}

/** A split (or one served variant at `pct`) as a distribution over variants, in hundredths that add up. */
function distribution(names: { name: string; weight: number }[], pct: number, off: string) {
  const total = names.reduce((a, v) => a + v.weight, 0)
  const out: { variant: string; weight: number }[] = []
  let cum = 0
  let prev = 0
  for (const v of names) {
    cum += v.weight
    const bound = Math.round((pct * 100 * cum) / total)
    if (bound > prev) out.push({ variant: v.name, weight: (bound - prev) / 100 })
    prev = bound
  }
  if (prev < 10000) out.push({ variant: off, weight: (10000 - prev) / 100 })
  return out
}

export function convertUnleash(files: { name: string; json: unknown }[], now: number): { document: FlagshipDocument; report: string[] } {
  const input = readUnleashFiles(files)
  const report: string[] = []
  const envs = input.exports.map((e) => e.environment)
  const segmentKeys = new Set<string>()
  const flagKeys = new Set<string>()
  const segments: SegmentEntry[] = []

  // Segments: kept as segments when they are an AND of conditions, else inlined where they are used.
  const segmentRefs = new Map<number, SegmentRef>()
  for (const s of input.segments ?? []) {
    const key = freeKey(keyOf(s.name), segmentKeys)
    const say = (m: string) => report.push(`segment ${s.name}: ${m}`)
    if (key !== s.name) say(`renamed ${key} (segment keys are letters, digits, . _ -)`)
    let dnf: Dnf | string
    try {
      dnf = constraintsDnf(s.constraints, { now, note: say })
    } catch (e) {
      if (!(e instanceof TooComplex)) throw e
      dnf = `its constraints need ${e.message}`
    }
    if (typeof dnf === 'string') {
      say(`not converted: ${dnf}; the strategies that use it are not converted either`)
      segmentRefs.set(s.id, { unmapped: `segment ${s.name} could not be converted` })
    } else if (dnf.length === 1 && dnf[0]!.every((l) => 'cond' in l)) {
      segments.push({ key, conditions: dnf[0]!.map((l) => (l as { cond: Condition }).cond) })
      segmentRefs.set(s.id, { key })
    } else {
      segmentKeys.delete(key)
      say(
        'not kept as a segment (its constraints need OR or NOT, which segments cannot hold); ' +
          'its conditions are written into the rules that use it',
      )
      segmentRefs.set(s.id, { dnf })
    }
  }
  const maker = new SegmentMaker(segmentKeys)

  const features = new Map<string, UnleashFeature>()
  for (const ex of input.exports) for (const f of ex.features) if (!features.has(f.name)) features.set(f.name, f)
  // Indexed once: exports of thousands of features would otherwise be scanned once per feature.
  const byName = new Map(
    input.exports.map((ex) => [
      ex,
      {
        environment: new Map(ex.featureEnvironments.map((e) => [e.featureName, e])),
        strategies: groupBy(ex.featureStrategies, (s) => s.featureName),
      },
    ]),
  )
  const tagsByFeature = groupBy(
    input.exports.flatMap((e) => e.featureTags),
    (t) => t.featureName,
  )
  const converted: ConvertedFlag[] = []
  const types = new Set<string>()
  const rollouts: string[] = []

  for (const feature of features.values()) {
    const key = freeKey(keyOf(feature.name), flagKeys)
    const say = (m: string) => report.push(`flag ${feature.name}: ${m}`)
    if (key !== feature.name) say(`renamed ${key} (flag keys are letters, digits, . _ -)`)
    if (feature.type) types.add(feature.type)
    if (feature.stale) say('marked stale in Unleash; Flagship tells stale flags from their evaluations instead')
    if (feature.impressionData) say('impression data is not converted')

    const variantNames = new Map<string, string>()
    const variantValues = new Map<string, Json>()
    const variantName = (name: string) => {
      if (!variantNames.has(name)) {
        const k = keyOf(name)
        if (k !== name) say(`variant ${name} renamed ${k}`)
        variantNames.set(name, k)
      }
      return variantNames.get(name)!
    }
    const perEnv = new Map<string, { enabled: boolean; pieces: Piece[] }>()
    for (const ex of input.exports) {
      const env = ex.environment
      const sayEnv = (m: string) => say(`${env}: ${m}`)
      const fe = byName.get(ex)!.environment.get(feature.name)
      if (fe === undefined) sayEnv("not in this environment's export; off there")
      if (fe?.variants?.length) sayEnv('environment-level variants (legacy) are not converted; strategy variants are')
      const pieces: Piece[] = []
      const strategies = byName.get(ex)!.strategies.get(feature.name) ?? []
      for (const s of strategies) {
        if (s.disabled) {
          sayEnv(`strategy ${s.title ?? s.name} is disabled in Unleash and was left out`)
          continue
        }
        for (const v of s.variants ?? []) {
          const value = payloadValue(v, sayEnv)
          const name = variantName(v.name)
          if (variantValues.has(name) && JSON.stringify(variantValues.get(name)) !== JSON.stringify(value))
            sayEnv(`variant ${v.name} has another payload here; the first one is kept`)
          else variantValues.set(name, value)
        }
        const piece = strategyPiece(s, {
          now,
          segment: (id) => segmentRefs.get(id),
          variantName,
          note: (m) => sayEnv(`strategy ${s.title ?? s.name}: ${m}`),
        })
        if (typeof piece === 'string') sayEnv(`strategy ${s.title ?? s.name} not converted (it reaches nobody here): ${piece}`)
        else if (piece !== null) pieces.push(piece)
      }
      // A feature enabled with no strategies is on for everyone (unleash-client).
      if (strategies.length === 0) pieces.push({ label: 'no strategy', dnf: [[]], serve: { kind: 'on' }, pct: 100, attribute: null })
      perEnv.set(env, { enabled: fe?.enabled === true, pieces })
    }

    const hasVariants = [...perEnv.values()].some((e) => e.pieces.some((p) => p.serve.kind !== 'on'))
    const variantSet = new Set(variantValues.keys())
    const OFF = hasVariants ? freeKey('off', variantSet) : ''
    let ON: string | undefined
    const offServe = (): Partial<Rule> => (hasVariants ? { variant: OFF } : { value: false })
    const serveOf = (s: Serve): Partial<Rule> => {
      if (!hasVariants) return { value: true }
      if (s.kind === 'variant') return { variant: s.name }
      ON ??= freeKey('on', variantSet)
      return { variant: ON }
    }
    const needsSlot = (p: Piece) => p.pct < 100 || p.serve.kind === 'split'
    const rolloutOf = (p: Piece): Rollout => {
      if (!hasVariants) return { percentage: p.pct, attribute: p.attribute! }
      const names = p.serve.kind === 'split' ? p.serve.variants : [{ name: serveOf(p.serve).variant!, weight: 1 }]
      return { distribution: distribution(names, p.pct, OFF), attribute: p.attribute! }
    }

    // Each environment's strategies are its own rules (docs/behaviour.md §4): one rule per alternative of a
    // strategy's constraints and segments, then the environment's one partial rollout or weighted split.
    const environments: Record<string, EnvironmentOverride> = {}
    const owner = key
    for (const [env, e] of perEnv) {
      const sayEnv = (m: string) => say(`${env}: ${m}`)
      const rules: Rule[] = []
      const rule = (conj: Condition[], serve: Partial<Rule>) => rules.push({ conditions: conj, ...serve } as Rule)
      const inSlot = e.pieces.find(needsSlot)
      for (const p of e.pieces) {
        if (p === inSlot) continue
        if (needsSlot(p)) {
          sayEnv(
            `strategy ${p.label} not converted (it reaches nobody here): ` +
              `an environment's rules have one rollout or weighted split, and it holds strategy ${inSlot!.label}'s`,
          )
          continue
        }
        for (const conj of p.dnf) rule(maker.conditions(conj, owner), serveOf(p.serve))
      }
      let rollout: Rollout | undefined
      if (inSlot) {
        if (hasVariants && e.pieces.indexOf(inSlot) !== e.pieces.length - 1)
          sayEnv(
            `strategy ${inSlot.label} now comes after the environment's other strategies ` +
              '(a context several strategies reach may get another variant)',
          )
        // Whoever does not meet the rollout's own constraints must not reach the rollout.
        for (const conj of not(inSlot.dnf)) rule(maker.conditions(conj, owner), offServe())
        rollout = rolloutOf(inSlot)
        rollouts.push(`${feature.name} (${env})`)
      } else if (!hasVariants && rules.at(-1)?.conditions.length !== 0) {
        // A boolean flag serves true: whoever no rule reached is off (a flag with variants falls through to off).
        rule([], offServe())
      }
      // Everyone on: the flag's value (true) needs no rules.
      const everyone =
        !hasVariants && rollout === undefined && rules.length > 0 && rules[0]!.conditions.length === 0 && rules[0]!.value === true
      environments[env] = { enabled: e.enabled, ...(!everyone && { targeting: { rules, ...(rollout && { rollout }) } }) }
    }

    const variants: Record<string, Json> | null = hasVariants
      ? Object.fromEntries([...variantValues].filter(([n]) => variantSet.has(n)))
      : null
    if (variants) {
      variants[OFF] = null
      if (ON !== undefined) variants[ON] = null
    }
    const flag: FlagEntry = { key, enabled: false, value: hasVariants ? null : true, environments }
    if (variants) Object.assign(flag, { variants, default_variant: OFF, off_variant: OFF })
    if (feature.description) flag.description = feature.description.slice(0, 2000)
    if (feature.archived) flag.archived = true
    const tags = tagsOf(tagsByFeature.get(feature.name) ?? [], say)
    if (tags.length > 0) flag.tags = tags
    converted.push({ name: feature.name, flag, off: OFF })
  }

  unleashPrerequisites(input.exports, converted, (m) => report.push(m))
  if (rollouts.length > 0)
    report.push(
      `rollouts (${rollouts.join(', ')}): Unleash and Flagship hash users differently (Unleash: murmur3 of "groupId:id"), ` +
        'so the shares are kept but which users are in (and which variant each gets) is not',
    )
  if (types.size > 0)
    report.push(`feature types (${[...types].sort().join(', ')}) are not converted; Flagship tells stale flags from their evaluations`)
  const fields = new Set(input.exports.flatMap((e) => e.contextFields.filter((f) => (f.legalValues ?? []).length > 0).map((f) => f.name)))
  if (fields.size > 0)
    report.push(`legal values of context fields (${[...fields].sort().join(', ')}) are not converted (Flagship conditions take any value)`)
  const links = input.exports.flatMap((e) => e.links)
  if (links.length > 0) report.push(`${links.length} feature link(s) not converted`)
  if (input.segments === null && input.exports.some((e) => e.featureStrategies.some((s) => (s.segments ?? []).length > 0)))
    report.push('no segment list given: strategies that use segments were not converted')

  const document: FlagshipDocument = {
    flagship: 1,
    environments: envs,
    segments: [...segments, ...maker.made],
    flags: converted.map((c) => c.flag),
  }
  return { document, report }
}

function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>()
  for (const item of items) {
    const k = key(item)
    const list = m.get(k)
    if (list) list.push(item)
    else m.set(k, [item])
  }
  return m
}

function tagsOf(featureTags: UnleashExport['featureTags'], say: (m: string) => void): string[] {
  const tags = new Set<string>()
  for (const t of featureTags) {
    const tag = tagOf(t.tagType === 'simple' ? t.tagValue : `${t.tagType}-${t.tagValue}`)
    if (tag === undefined) say(`tag ${t.tagType}:${t.tagValue} not converted (tags are lower-case letters, digits, _ -)`)
    else tags.add(tag)
  }
  if (tags.size > 20) say('more than 20 tags: the first 20 are kept')
  return [...tags].slice(0, 20)
}
