// A definitions document compiled for evaluation. Each flag is compiled once per change to it or to a
// segment it uses: a new document reuses every compiled flag whose stamp (its version and timestamps, and
// those of its segments) is unchanged, so a change to one flag of 10,000 compiles one flag.
import { compileFlag } from '../../server/engine/compile'
import { segmentKeysOf } from '../../server/engine/documents'
import { conditionsUseRegex } from '../../server/engine/regex'
import type { CompiledFlag, FlagResolver, SegmentDefinition } from '../../server/engine/types'
import type { ChangeEvent, Definitions, MeasuredReleasePlan, RunningExperiment, StoredConfig, StoredFlag, StoredSegment } from './types'
import { FlagCounter } from './usage'
import { isObject } from '../../server/engine/is-object'

export interface FlagEntry {
  readonly compiled: CompiledFlag
  /** the stored flag's version (OpenFeature's flagVersion), when the document has it */
  readonly version: number | undefined
  readonly counter: FlagCounter
  readonly stamp: string
}

export interface State {
  readonly version: number
  readonly environments: ReadonlySet<string>
  readonly flags: ReadonlyMap<string, FlagEntry>
  readonly configs: ReadonlyMap<string, StoredConfig>
}

const keyed = (v: unknown): boolean => isObject(v) && typeof v.key === 'string'

/** A flags-as-code document (`flagship: 1`, docs/as-code.md) as definitions: its entries are resources as
 *  the API takes them on create, so create's defaults apply (enabled false, value true, a flag with variants
 *  serving its default variant); archived flags are not evaluated, so they are left out. */
function fromFlagshipDocument(doc: Record<string, unknown>): Record<string, unknown> {
  if (doc.flagship !== 1) throw new TypeError('a flagship document must have `flagship: 1`')
  const flags = Array.isArray(doc.flags) ? doc.flags : []
  return {
    version: 0,
    environments: doc.environments ?? [],
    segments: doc.segments ?? [],
    configs: doc.configs ?? [],
    flags: flags
      .filter((f) => !(isObject(f) && f.archived === true))
      .map((f) => {
        if (!isObject(f)) return f
        const variants = isObject(f.variants) ? f.variants : undefined
        const dv =
          typeof f.default_variant === 'string' && variants && Object.hasOwn(variants, f.default_variant)
            ? variants[f.default_variant]
            : undefined
        return { ...f, enabled: f.enabled ?? false, value: dv !== undefined ? dv : f.value === undefined ? true : f.value }
      }),
  }
}

/** Checks a document's shape (from the server or given as `bootstrap`, which may also be a flags-as-code
 *  document); throws a TypeError naming the problem. */
export function checkDefinitions(input: unknown): Definitions {
  const doc = isObject(input) && 'flagship' in input ? fromFlagshipDocument(input) : input
  if (!isObject(doc)) throw new TypeError('definitions must be an object { version, environments, flags, configs, segments }')
  if (typeof doc.version !== 'number') throw new TypeError('definitions.version must be a number')
  for (const field of ['environments', 'flags', 'configs', 'segments'] as const) {
    if (doc[field] !== undefined && !Array.isArray(doc[field])) throw new TypeError(`definitions.${field} must be an array`)
  }
  for (const field of ['flags', 'configs', 'segments'] as const) {
    if (((doc[field] ?? []) as unknown[]).some((d) => !keyed(d)))
      throw new TypeError(`definitions.${field} must hold objects with a string key`)
  }
  if (doc.experiments !== undefined && !Array.isArray(doc.experiments)) throw new TypeError('definitions.experiments must be an array')
  if (doc.release_plans !== undefined && !Array.isArray(doc.release_plans))
    throw new TypeError('definitions.release_plans must be an array')
  if (doc.environment !== undefined && typeof doc.environment !== 'string') throw new TypeError('definitions.environment must be a string')
  return {
    version: doc.version,
    environments: (doc.environments ?? []) as string[],
    flags: (doc.flags ?? []) as StoredFlag[],
    configs: (doc.configs ?? []) as StoredConfig[],
    segments: (doc.segments ?? []) as StoredSegment[],
    ...(typeof doc.environment === 'string' && { environment: doc.environment }),
    ...(doc.experiments !== undefined && { experiments: doc.experiments as RunningExperiment[] }),
    ...(doc.release_plans !== undefined && { release_plans: doc.release_plans as MeasuredReleasePlan[] }),
  }
}

/** Whether compiling the document needs the regex engine (a rule or a segment uses `matches`). */
export function usesRegex(doc: Definitions): boolean {
  const lists: unknown[] = doc.segments.map((s) => s.conditions)
  for (const f of doc.flags)
    for (const rule of isObject(f.targeting) && Array.isArray(f.targeting.rules) ? f.targeting.rules : [])
      lists.push(isObject(rule) ? rule.conditions : undefined)
  return conditionsUseRegex(lists)
}

/** What identifies one version of a stored document: its version and timestamps, or (hand-written
 *  bootstrap documents may have none) its whole text. */
function stampOf(doc: { version?: number; created_at?: string; updated_at?: string }): string {
  return typeof doc.version === 'number' && typeof doc.updated_at === 'string'
    ? `${doc.version}@${doc.updated_at}@${doc.created_at}`
    : JSON.stringify(doc)
}

export interface Built {
  state: State
  change: ChangeEvent
  /** counters of the flags replaced or removed (their counts still to be collected) */
  retired: FlagCounter[]
}

/** Compiles `doc`, reusing what `previous` compiled for unchanged flags. Never throws for a checked document.
 *  `resolveFlag` finds prerequisite flags when evaluated: the client's current state, so flags reused from an
 *  earlier state see the prerequisites of the newest one. */
export function buildState(doc: Definitions, previous: State | undefined, resolveFlag?: FlagResolver): Built {
  const environments = new Set(doc.environments.filter((e) => typeof e === 'string'))
  const sameEnvironments =
    previous !== undefined &&
    previous.environments.size === environments.size &&
    [...environments].every((e) => previous.environments.has(e))
  const segments = new Map<string, SegmentDefinition>()
  const segmentStamps = new Map<string, string>()
  for (const s of doc.segments) {
    segments.set(s.key, s)
    segmentStamps.set(s.key, stampOf(s))
  }

  const flags = new Map<string, FlagEntry>()
  const changedFlags: string[] = []
  const retired: FlagCounter[] = []
  for (const f of doc.flags) {
    const stamp = `${stampOf(f)}|${segmentKeysOf(f)
      .map((k) => segmentStamps.get(k) ?? '-')
      .join('|')}`
    const held = previous?.flags.get(f.key)
    if (held !== undefined && held.stamp === stamp && sameEnvironments) {
      flags.set(f.key, held)
      continue
    }
    const compiled = compileFlag(f, segments, resolveFlag)
    flags.set(f.key, {
      compiled,
      version: typeof f.version === 'number' ? f.version : undefined,
      counter: new FlagCounter(f.key, compiled, environments),
      stamp,
    })
    if (held !== undefined) retired.push(held.counter)
    if (held === undefined || held.stamp !== stamp) changedFlags.push(f.key)
  }
  for (const [key, held] of previous?.flags ?? []) {
    if (!flags.has(key)) {
      retired.push(held.counter)
      changedFlags.push(key)
    }
  }

  const configs = new Map<string, StoredConfig>()
  const changedConfigs: string[] = []
  for (const c of doc.configs) {
    configs.set(c.key, c)
    const held = previous?.configs.get(c.key)
    if (held === undefined || stampOf(held) !== stampOf(c)) changedConfigs.push(c.key)
  }
  for (const key of previous?.configs.keys() ?? []) if (!configs.has(key)) changedConfigs.push(key)

  return {
    state: { version: doc.version, environments, flags, configs },
    change: { version: doc.version, flags: changedFlags, configs: changedConfigs },
    retired,
  }
}
