// The parts of a compiled flag that are built once and only read at evaluation (compile.ts): prerequisite
// requirements, weighted splits and active-window bounds.
import { isObject } from './is-object'
import { parseIsoDate } from './dates'
import { frozenJson, result, type VariantTable } from './outcomes'
import type { EvaluationResult } from './types'

export interface CompiledPrerequisite {
  readonly key: string
  /** whether the prerequisite flag's result satisfies the requirement */
  readonly accepts: (r: EvaluationResult) => boolean
}

/** A weighted split: buckets below bounds[i] (hundredths, cumulative) and not below bounds[i - 1] get results[i]. */
export interface CompiledSplit {
  readonly bounds: readonly number[]
  readonly results: readonly EvaluationResult[]
  /** each variant the split serves -> its share in percent (its slices' weights added up) */
  readonly shares: ReadonlyMap<string, number>
}

function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false
  const ka = Object.keys(a)
  const kb = Object.keys(b)
  return (
    ka.length === kb.length &&
    ka.every((k) => Object.hasOwn(b, k) && jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
  )
}

/** A window bound: absent is open; a bound that does not parse fails closed (the flag is never active). */
export function bound(text: unknown, open: number): number {
  if (text === undefined || text === null) return open
  const t = typeof text === 'string' ? parseIsoDate(text) : NaN
  return Number.isNaN(t) ? NaN : t
}

export function compilePrerequisites(list: unknown): CompiledPrerequisite[] {
  if (!Array.isArray(list)) return []
  return list.filter(isObject).map((p) => {
    const key = String(p.key)
    if (typeof p.variant === 'string') {
      const name = p.variant
      return { key, accepts: (r: EvaluationResult) => r.variant === name }
    }
    const expected = frozenJson(p.value)
    return { key, accepts: (r: EvaluationResult) => jsonEqual(r.value, expected) }
  })
}

/** The weighted split of a rollout with `distribution`: cumulative bounds in hundredths of a percent, so
 *  weights with two decimals add up exactly. A slice naming an unknown variant serves the off value. */
export function compileSplit(distribution: unknown, table: VariantTable, off: EvaluationResult): CompiledSplit | null {
  if (!Array.isArray(distribution)) return null
  const bounds: number[] = []
  const results: EvaluationResult[] = []
  const hundredths = new Map<string, number>()
  let total = 0
  for (const slice of distribution) {
    if (!isObject(slice)) continue
    const weight =
      typeof slice.weight === 'number' && Number.isFinite(slice.weight) && slice.weight > 0 ? Math.round(slice.weight * 100) : 0
    total += weight
    const name = typeof slice.variant === 'string' ? slice.variant : ''
    bounds.push(total)
    results.push(table.has(name) ? result(table.get(name)!, 'rollout', name) : off)
    if (table.has(name)) hundredths.set(name, (hundredths.get(name) ?? 0) + weight)
  }
  return { bounds, results, shares: new Map([...hundredths].map(([name, h]) => [name, h / 100])) }
}
