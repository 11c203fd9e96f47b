// Shared by the convert tests: a converted document checked the way the API checks what it stores, and
// evaluated with our engine (server/engine) as a server holding it would.
import { expect } from 'bun:test'
import {
  compileFlag,
  validateConditions,
  validateFlag,
  type CompiledFlag,
  type EvaluationContext,
  type EvaluationResult,
  type FlagDefinition,
  type SegmentDefinition,
} from '../../server/engine'
import type { FlagshipDocument } from '../../server/documents/model'
import { parseDocumentText } from '../../server/documents/parse'
import { serializeDocument } from '../../server/documents/serialize'
import { validateDocument } from '../../server/documents/validate'

/** Every segment and flag passes the services' own validation, the document passes the import's checks,
 *  and it survives being written as YAML and read back. */
export function expectValidDocument(doc: FlagshipDocument): void {
  const segmentKeys = new Set((doc.segments ?? []).map((s) => s.key))
  const environments = new Set(doc.environments ?? [])
  const issues: string[] = []
  for (const s of doc.segments ?? [])
    for (const i of validateConditions(s.conditions, 'conditions', new Set())) issues.push(`segment ${s.key}: ${i.path} ${i.message}`)
  for (const f of doc.flags ?? [])
    for (const i of validateFlag(f, { segmentKeys, environments })) issues.push(`flag ${f.key}: ${i.path} ${i.message}`)
  for (const i of validateDocument(doc)) issues.push(`${i.path} ${i.message}`)
  expect(issues).toEqual([])
  const reread = parseDocumentText(serializeDocument(doc, 'yaml'), { format: 'yaml' })
  expect(reread.errors).toEqual([])
}

/** The document's flags compiled against its segments, prerequisites resolved among them. */
export function compileDocument(doc: FlagshipDocument): Map<string, CompiledFlag> {
  const segments = new Map<string, SegmentDefinition>((doc.segments ?? []).map((s) => [s.key, s]))
  const flags = new Map<string, CompiledFlag>()
  for (const f of doc.flags ?? [])
    flags.set(
      f.key,
      compileFlag(f as FlagDefinition, segments, (k) => flags.get(k)),
    )
  return flags
}

export function evaluate(flags: Map<string, CompiledFlag>, key: string, context: EvaluationContext, now?: number): EvaluationResult {
  const flag = flags.get(key)
  if (flag === undefined) throw new Error(`no flag ${key}`)
  return flag.evaluate(context, now)
}

/** A small seeded generator (mulberry32), so the contexts a test draws are the same every run. */
export function seeded(seed: number) {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return { next, pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]! }
}

/** How far apart two shares of n draws each may be: 4.5 standard deviations of their difference. */
export const shareTolerance = (p: number, n: number) => 4.5 * Math.sqrt((2 * Math.max(p * (1 - p), 0.0025)) / n)

interface ExportLike {
  features: { name: string }[]
  featureStrategies: {
    featureName: string
    name: string
    parameters?: unknown
    constraints?: unknown[]
    variants?: unknown[]
    segments?: number[]
    disabled?: boolean
  }[]
  featureEnvironments: { featureName: string; enabled: boolean; variants?: unknown[] }[]
  dependencies: { feature: string; dependencies: unknown[] }[]
}
/** What an Unleash server hands its SDKs (GET /api/client/features) for the environment of an export: a
 *  test checks this against the real server's answer for the real fixtures, then uses it for projects
 *  written in tests, so unleash-client can evaluate them. */
export function clientFeaturesOf(ex: ExportLike) {
  return ex.features.map(({ name }) => ({
    name,
    enabled: ex.featureEnvironments.find((e) => e.featureName === name)?.enabled === true,
    strategies: ex.featureStrategies
      .filter((s) => s.featureName === name && !s.disabled)
      .map((s) => ({
        name: s.name,
        constraints: s.constraints ?? [],
        parameters: s.parameters ?? {},
        variants: s.variants ?? [],
        segments: s.segments ?? [],
      })),
    variants: ex.featureEnvironments.find((e) => e.featureName === name)?.variants ?? [],
    dependencies: ex.dependencies.find((d) => d.feature === name)?.dependencies ?? [],
  }))
}
