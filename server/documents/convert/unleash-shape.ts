// The shape of what `convert --from unleash` reads (unleash-input.ts), checked before anything is converted:
// a malformed export (a constraint's `values` a number, a strategy null...) is refused with the file and
// the place named (the CLI's exit 1), never a TypeError half-way. Only the fields the converter reads are
// described; everything else Unleash writes passes through untouched. Pure.
import { Type, type TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { ConvertError } from './errors'

const Str = Type.String()
/** A field Unleash may leave out or write as null (nulls are dropped before the check, so a problem
 *  inside a present value is named at its own place rather than as "no union member fits"). */
const Maybe = <T extends TSchema>(s: T) => Type.Optional(s)

export const UnleashConstraintShape = Type.Object({
  contextName: Str,
  operator: Str,
  values: Maybe(Type.Array(Str)),
  value: Maybe(Str),
  caseInsensitive: Maybe(Type.Boolean()),
  inverted: Maybe(Type.Boolean()),
})
const Variant = Type.Object({
  name: Str,
  weight: Type.Number(),
  weightType: Maybe(Str),
  stickiness: Maybe(Str),
  payload: Maybe(Type.Object({ type: Str, value: Str })),
  overrides: Maybe(Type.Array(Type.Unknown())),
})
const Strategy = Type.Object({
  name: Str,
  featureName: Str,
  title: Maybe(Str),
  parameters: Maybe(Type.Record(Str, Type.Union([Str, Type.Number()]))),
  constraints: Maybe(Type.Array(UnleashConstraintShape)),
  variants: Maybe(Type.Array(Variant)),
  segments: Maybe(Type.Array(Type.Number())),
  disabled: Maybe(Type.Boolean()),
})

/** The lists of an environment's export (POST /api/admin/features-batch/export). */
export const UnleashExportShape = Type.Object({
  features: Type.Array(
    Type.Object({
      name: Str,
      description: Maybe(Str),
      type: Maybe(Str),
      stale: Maybe(Type.Boolean()),
      impressionData: Maybe(Type.Boolean()),
      archived: Maybe(Type.Boolean()),
    }),
  ),
  featureStrategies: Type.Array(Strategy),
  featureEnvironments: Maybe(
    Type.Array(Type.Object({ featureName: Str, environment: Str, enabled: Type.Boolean(), variants: Maybe(Type.Array(Variant)) })),
  ),
  featureTags: Maybe(Type.Array(Type.Object({ featureName: Str, tagType: Str, tagValue: Str }))),
  dependencies: Maybe(
    Type.Array(
      Type.Object({
        feature: Str,
        dependencies: Type.Array(Type.Object({ feature: Str, enabled: Maybe(Type.Boolean()), variants: Maybe(Type.Array(Str)) })),
      }),
    ),
  ),
  contextFields: Maybe(Type.Array(Type.Object({ name: Str, legalValues: Maybe(Type.Array(Type.Unknown())) }))),
  links: Maybe(Type.Array(Type.Object({ featureName: Maybe(Str), url: Maybe(Str) }))),
})

/** Unleash's segment list (GET /api/admin/segments). */
export const UnleashSegmentsShape = Type.Object({
  segments: Type.Array(
    Type.Object({ id: Type.Number(), name: Str, description: Maybe(Str), constraints: Type.Array(UnleashConstraintShape) }),
  ),
})

/** A copy without the object fields that are null (list items stay: a null strategy is still refused). */
function withoutNullFields(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutNullFields)
  if (v === null || typeof v !== 'object') return v
  return Object.fromEntries(
    Object.entries(v)
      .filter(([, x]) => x !== null)
      .map(([k, x]) => [k, withoutNullFields(x)]),
  )
}

/** `/featureStrategies/3/constraints/0/values` -> `featureStrategies[3].constraints[0].values` */
const placeOf = (pointer: string) =>
  pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((out, p) => (/^\d+$/.test(p) ? `${out}[${p}]` : out ? `${out}.${p}` : p), '')

/** Throws ConvertError naming the file, the first place that does not fit and what was expected there. */
export function assertShape(schema: TSchema, json: unknown, file: string, what: string): void {
  const value = withoutNullFields(json)
  if (Value.Check(schema, value)) return
  const first = Value.Errors(schema, value).First()
  const place = first ? placeOf(first.path) || '(the file)' : '(the file)'
  throw new ConvertError(`${file}: not a valid ${what}: ${place}: ${first?.message.toLowerCase() ?? 'unexpected shape'}`)
}
