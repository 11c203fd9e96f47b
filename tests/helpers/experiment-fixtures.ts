// The experiment datasets of tests/fixtures/experiments (gbstats' answers) and their replay through the
// HTTP API exactly as that folder's README says: flag, metrics, experiment, start, then every exposure and
// track event through POST /api/v1/events in batches of 1,000, timed from one `now`.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { api } from './server'

export interface Dataset {
  id: string
  environment: string
  unit_attribute: string
  flag: Record<string, unknown> & { key: string }
  metrics: Record<string, unknown>[]
  experiment: Record<string, unknown> & { key: string }
  expected: any
  exposures: [string, string, number][]
  events: ([string, string, number] | [string, string, number, number])[]
}

export const DATASETS = ['checkout-proportion-bayesian', 'revenue-mean-sequential-cuped', 'session-ratio-fixed-horizon']
export const loadDataset = (id: string): Dataset =>
  JSON.parse(readFileSync(join(import.meta.dir, '..', 'fixtures', 'experiments', `${id}.json`), 'utf8'))

const ok = (r: { status: number; body: unknown }, what: string) => {
  if (r.status >= 300) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`)
  return r
}

/** Creates and starts the dataset's experiment and sends its data. */
export async function replay(srv: { url: string }, token: string, d: Dataset): Promise<void> {
  ok(await api(srv, 'POST', '/api/v1/flags', { token, body: d.flag }), 'flag')
  for (const m of d.metrics) ok(await api(srv, 'POST', '/api/v1/metrics', { token, body: m }), `metric ${m.key}`)
  ok(await api(srv, 'POST', '/api/v1/experiments', { token, body: d.experiment }), 'experiment')
  ok(await api(srv, 'POST', `/api/v1/experiments/${d.experiment.key}/start`, { token }), 'start')
  const now = Date.now()
  const context = (unit: string) => ({ [d.unit_attribute]: unit, environment: d.environment })
  const at = (offset: number) => new Date(now + offset * 1000).toISOString()
  const items = [
    ...d.exposures.map(([unit, variant, offset]) => ({
      type: 'exposure',
      flag: d.flag.key,
      variant,
      context: context(unit),
      timestamp: at(offset),
    })),
    ...d.events.map(([unit, key, offset, value]) => ({
      type: 'track',
      key,
      context: context(unit),
      ...(value !== undefined && { value }),
      timestamp: at(offset),
    })),
  ]
  for (let i = 0; i < items.length; i += 1000)
    ok(await api(srv, 'POST', '/api/v1/events', { token, body: { events: items.slice(i, i + 1000) } }), `events ${i}`)
}

/** Equal at 1e-6 relative (absolute 1e-9 near zero), as the README asks; other values exactly. */
export function near(actual: unknown, expected: unknown, path = ''): string[] {
  if (typeof expected === 'number') {
    if (typeof actual !== 'number') return [`${path}: ${JSON.stringify(actual)} is not ${expected}`]
    const diff = Math.abs(actual - expected)
    return diff <= 1e-9 || diff <= 1e-6 * Math.abs(expected) ? [] : [`${path}: ${actual} is not ${expected}`]
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length)
      return [`${path}: ${JSON.stringify(actual)} is not ${JSON.stringify(expected)}`]
    return expected.flatMap((e, i) => near(actual[i], e, `${path}[${i}]`))
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object') return [`${path}: missing`]
    return Object.entries(expected).flatMap(([k, e]) => near((actual as Record<string, unknown>)[k], e, `${path}.${k}`))
  }
  return actual === expected ? [] : [`${path}: ${JSON.stringify(actual)} is not ${JSON.stringify(expected)}`]
}
