// A strict reader of the Prometheus text exposition format (version 0.0.4) for tests: every line must be a
// HELP, a TYPE, a sample of a family declared before it, or empty; anything else throws. Histogram
// families are checked for cumulative buckets ending in +Inf equal to _count.

export interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

export interface Exposition {
  types: Map<string, string>
  help: Map<string, string>
  samples: Sample[]
  /** samples of `name` whose labels include every given one */
  find(name: string, labels?: Record<string, string>): Sample[]
  /** the one sample of `name` with exactly these labels, or undefined */
  value(name: string, labels?: Record<string, string>): number | undefined
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*'
const LABEL = `([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\\\\n]|\\\\[\\\\"n])*)"`
const SAMPLE = new RegExp(
  `^(${NAME})(?:\\{((?:${LABEL})(?:,${LABEL})*)?,?\\})? (-?(?:[0-9.]+(?:e[+-]?[0-9]+)?|Nan|NaN|\\+Inf|-Inf))(?: -?[0-9]+)?$`,
)
const META = new RegExp(`^# (HELP|TYPE) (${NAME}) (.*)$`)
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped'])

const unescapeLabel = (v: string) => v.replace(/\\(["\\n])/g, (_, c: string) => (c === 'n' ? '\n' : c))

function familyOf(name: string, types: Map<string, string>): string | undefined {
  if (types.has(name)) return name
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (name.endsWith(suffix) && types.get(name.slice(0, -suffix.length)) === 'histogram') return name.slice(0, -suffix.length)
  }
  return undefined
}

export function parsePrometheus(text: string): Exposition {
  const types = new Map<string, string>()
  const help = new Map<string, string>()
  const samples: Sample[] = []
  for (const [i, line] of text.split('\n').entries()) {
    if (line === '') continue
    const meta = META.exec(line)
    if (meta) {
      const [, kind, name, rest] = meta
      if (kind === 'TYPE') {
        if (!TYPES.has(rest!)) throw new Error(`line ${i + 1}: unknown type "${rest}"`)
        if (types.has(name!)) throw new Error(`line ${i + 1}: second TYPE for ${name}`)
        types.set(name!, rest!)
      } else help.set(name!, rest!)
      continue
    }
    const m = SAMPLE.exec(line)
    if (!m) throw new Error(`line ${i + 1} is not a sample: ${JSON.stringify(line)}`)
    const name = m[1]!
    if (familyOf(name, types) === undefined) throw new Error(`line ${i + 1}: ${name} has no TYPE before it`)
    const labels: Record<string, string> = {}
    for (const l of (m[2] ?? '').matchAll(new RegExp(LABEL, 'g'))) labels[l[1]!] = unescapeLabel(l[2]!)
    const raw = m[7]!
    samples.push({ name, labels, value: raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : Number(raw) })
  }
  const same = (a: Record<string, string>, b: Record<string, string>) =>
    Object.keys(a).length === Object.keys(b).length && Object.entries(b).every(([k, v]) => a[k] === v)
  const exposition: Exposition = {
    types,
    help,
    samples,
    find: (name, labels = {}) => samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)),
    value: (name, labels = {}) => samples.find((s) => s.name === name && same(s.labels, labels))?.value,
  }
  for (const [family, type] of types) if (type === 'histogram') checkHistogram(exposition, family)
  return exposition
}

function checkHistogram(e: Exposition, family: string): void {
  const groups = new Map<string, Sample[]>()
  for (const s of e.find(`${family}_bucket`)) {
    const { le: _le, ...rest } = s.labels
    const key = JSON.stringify(rest)
    groups.set(key, [...(groups.get(key) ?? []), s])
  }
  for (const [key, buckets] of groups) {
    const labels = JSON.parse(key) as Record<string, string>
    const les = buckets.map((b) => (b.labels.le === '+Inf' ? Infinity : Number(b.labels.le)))
    if (les.at(-1) !== Infinity) throw new Error(`${family}${key}: the last bucket is not +Inf`)
    for (let i = 1; i < buckets.length; i++) {
      if (!(les[i]! > les[i - 1]!) || buckets[i]!.value < buckets[i - 1]!.value)
        throw new Error(`${family}${key}: buckets are not cumulative in increasing le`)
    }
    if (e.value(`${family}_count`, labels) !== buckets.at(-1)!.value)
      throw new Error(`${family}${key}: _count differs from the +Inf bucket`)
    if (e.value(`${family}_sum`, labels) === undefined) throw new Error(`${family}${key}: no _sum`)
  }
}
