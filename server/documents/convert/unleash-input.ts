// Reading what `convert --from unleash` is given: each environment's export (POST
// /api/admin/features-batch/export, one environment per file), Unleash's segment list (GET
// /api/admin/segments: the export names segments by id only) and, optionally, the strategy definitions
// (GET /api/admin/strategies; nothing in them changes a conversion).
import { ConvertError } from './errors'
import { assertShape, UnleashExportShape, UnleashSegmentsShape } from './unleash-shape'
import type { UnleashConstraint } from './unleash-constraints'
import { isObject } from '../../engine/is-object'

export interface UnleashVariant {
  name: string
  weight: number
  weightType?: string
  stickiness?: string
  payload?: { type: string; value: string }
  overrides?: unknown[]
}
export interface UnleashStrategy {
  name: string
  featureName: string
  title?: string | null
  parameters?: Record<string, string>
  constraints?: UnleashConstraint[]
  variants?: UnleashVariant[]
  segments?: number[]
  disabled?: boolean
}
export interface UnleashFeature {
  name: string
  description?: string | null
  type?: string
  stale?: boolean
  impressionData?: boolean
  archived?: boolean
}
export interface UnleashDependency {
  feature: string
  enabled?: boolean
  variants?: string[]
}
export interface UnleashExport {
  environment: string
  file: string
  features: UnleashFeature[]
  featureStrategies: UnleashStrategy[]
  featureEnvironments: { featureName: string; environment: string; enabled: boolean; variants?: UnleashVariant[] }[]
  featureTags: { featureName: string; tagType: string; tagValue: string }[]
  dependencies: { feature: string; dependencies: UnleashDependency[] }[]
  contextFields: { name: string; legalValues?: unknown[] }[]
  links: { featureName?: string; url?: string }[]
}
export interface UnleashSegment {
  id: number
  name: string
  description?: string | null
  constraints: UnleashConstraint[]
}
export interface UnleashInput {
  exports: UnleashExport[]
  segments: UnleashSegment[] | null
}

const list = <T>(v: unknown): T[] => (Array.isArray(v) ? (v as T[]) : [])

export function readUnleashFiles(files: { name: string; json: unknown }[]): UnleashInput {
  const exports: UnleashExport[] = []
  let segments: UnleashSegment[] | null = null
  for (const { name, json } of files) {
    if (!isObject(json)) throw new ConvertError(`${name}: not an Unleash export (a JSON object)`)
    if (Array.isArray(json.featureStrategies) && Array.isArray(json.features)) {
      assertShape(UnleashExportShape, json, name, 'Unleash export')
      const envs = new Set(
        list<{ environment?: string }>(json.featureEnvironments)
          .map((e) => e.environment)
          .filter((e): e is string => typeof e === 'string'),
      )
      const fromName = /export\.([^./\\]+)\.json$/i.exec(name)?.[1]
      if (envs.size > 1)
        throw new ConvertError(`${name}: holds more than one environment (${[...envs].join(', ')}); export one environment per file`)
      const environment = [...envs][0] ?? fromName
      if (environment === undefined)
        throw new ConvertError(`${name}: cannot tell its environment (no featureEnvironments; name the file export.<environment>.json)`)
      if (!/^[a-z0-9][a-z0-9_-]{0,62}$/.test(environment))
        throw new ConvertError(
          `${name}: environment "${environment}" is not a Flagship environment name (lower-case letters, digits, _ -); ` +
            'rename it in Unleash or the export first',
        )
      if (exports.some((e) => e.environment === environment)) throw new ConvertError(`${name}: environment ${environment} given twice`)
      exports.push({
        environment,
        file: name,
        features: list(json.features),
        featureStrategies: list(json.featureStrategies),
        featureEnvironments: list(json.featureEnvironments),
        featureTags: list(json.featureTags),
        dependencies: list(json.dependencies),
        contextFields: list(json.contextFields),
        links: list(json.links),
      })
    } else if (Array.isArray(json.segments) && !('features' in json)) {
      const defs = list<UnleashSegment>(json.segments)
      if (defs.some((s) => !isObject(s) || typeof s.id !== 'number' || typeof s.name !== 'string' || !Array.isArray(s.constraints))) {
        throw new ConvertError(`${name}: a segment list must hold { id, name, constraints } (GET /api/admin/segments)`)
      }
      assertShape(UnleashSegmentsShape, json, name, 'Unleash segment list')
      segments = [...(segments ?? []), ...defs]
    } else if (Array.isArray(json.strategies) && !('features' in json)) {
      // Strategy definitions: the strategies themselves are recognised by name.
    } else if (Array.isArray(json.features)) {
      throw new ConvertError(
        `${name}: this is the client API format (GET /api/client/features); ` +
          'convert the admin export (POST /api/admin/features-batch/export) of each environment',
      )
    } else {
      throw new ConvertError(`${name}: not an Unleash export, segment list or strategy list`)
    }
  }
  if (exports.length === 0) throw new ConvertError('no Unleash export given (one file per environment)')
  return { exports, segments }
}
