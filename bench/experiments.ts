// Experiments (docs/experiments.md §5), on SQLite and PostgreSQL: (1) ingest, events per second through
// POST /api/v1/events in batches of 1,000; (2) results of 1,000,000 exposed units and 5,000,000 track events
// (two metrics, CUPED on): the time of GET …/results?refresh=true and the server's memory before and
// after (the rows stay in the database); (3, SQLite) the hot path: GET /flags/:key with a new user_id every
// request for a flag in a running experiment against the same flag without one (target >= 0.9).
// Run by bench/run.ts; alone: `bun bench/experiments.ts` (BENCH_EXPERIMENT_UNITS, BENCH_EXPERIMENT_EVENTS
// scale the results part; BENCH_POSTGRES_URL the server that gets a scratch database, default the local one).
import postgres from 'postgres'
import { Database } from 'bun:sqlite'
import {
  call,
  fmtInt,
  fmtMs,
  interleaved,
  line,
  luaScript,
  mustCall,
  roundRatio,
  rssKiB,
  startFlagServer,
  type FlagServer,
  type Target,
  type WrkResult,
} from './lib'

export const EXPERIMENT_UNITS = Number(process.env.BENCH_EXPERIMENT_UNITS ?? 1_000_000)
export const EXPERIMENT_EVENTS = Number(process.env.BENCH_EXPERIMENT_EVENTS ?? 5_000_000)
const UNITS = EXPERIMENT_UNITS
const EVENTS = EXPERIMENT_EVENTS
const INGEST_BATCHES = Number(process.env.BENCH_INGEST_BATCHES ?? 200)
const PG_ADMIN = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const DAY = 86_400_000

export interface ExperimentFigures {
  store: string
  ingestPerSecond: number
  resultsMs: number
  resultsCachedMs: number
  rssBeforeMiB: number
  rssAfterMiB: number
  seedSeconds: number
}

const split = {
  attribute: 'user_id',
  distribution: [
    { variant: 'a', weight: 50 },
    { variant: 'b', weight: 50 },
  ],
}

async function setUp(srv: FlagServer, flag: string, experiment: string): Promise<string> {
  await mustCall(
    srv,
    'POST',
    '/api/v1/flags',
    { key: flag, enabled: true, variants: { a: 'A', b: 'B' }, default_variant: 'a', targeting: { rollout: split } },
    201,
  )
  await call(srv, 'POST', '/api/v1/metrics', { key: 'orders', name: 'Orders', kind: 'mean', event: 'order', aggregation: 'sum' })
  await call(srv, 'POST', '/api/v1/metrics', { key: 'visited', name: 'Visited', kind: 'proportion', event: 'visit' })
  await mustCall(
    srv,
    'POST',
    '/api/v1/experiments',
    {
      key: experiment,
      name: experiment,
      flag,
      environment: 'production',
      goal_metrics: ['orders'],
      guardrail_metrics: ['visited'],
      engine: 'frequentist',
    },
    201,
  )
  await mustCall(srv, 'POST', `/api/v1/experiments/${experiment}/start`, {}, 200)
  return experiment
}

/** Events per second through POST /api/v1/events, batches of 1,000, 4 in flight. */
async function ingest(srv: FlagServer): Promise<number> {
  const now = Date.now()
  const batch = (b: number) =>
    JSON.stringify({
      events: Array.from({ length: 1000 }, (_, i) => ({
        type: 'track',
        key: i % 3 ? 'order' : 'visit',
        context: { user_id: `i${(b * 1000 + i) % 50_000}`, environment: 'production' },
        value: i % 50,
        timestamp: new Date(now - i * 1000).toISOString(),
      })),
    })
  const bodies = Array.from({ length: 8 }, (_, b) => batch(b))
  const started = performance.now()
  let next = 0
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < INGEST_BATCHES) {
        const b = next++
        const r = await fetch(`${srv.url}/api/v1/events`, {
          method: 'POST',
          headers: { authorization: `Bearer ${srv.token}`, 'content-type': 'application/json' },
          body: bodies[b % bodies.length],
        })
        if (r.status !== 202) throw new Error(`POST /api/v1/events answered ${r.status}: ${await r.text()}`)
      }
    }),
  )
  return (INGEST_BATCHES * 1000) / ((performance.now() - started) / 1000)
}

/** The exposures and events of the results part, written straight into the store (through HTTP it would
 *  take minutes and measure ingest, which (1) does): units `u0000000…`, half in each variant, exposed over the
 *  last 14 days; events over the last 28 days (so CUPED's covariate has some), in unit order. */
const seedSql = (experimentId: string, now: number, range: (n: number) => string) => {
  const variant = "case when i % 2 = 0 then 'a' else 'b' end"
  const key = "case when i % 5 < 3 then 'order' else 'visit' end"
  const unitOfEvent = `'u' || lpad(cast(i / ${Math.max(1, Math.round(EVENTS / UNITS))} as text), 7, '0')`
  return [
    `insert into exposures (experiment_id, phase, unit, first_at, variant, multiple)
   select '${experimentId}', 1, 'u' || lpad(cast(i as text), 7, '0'), ${now - 14 * DAY} + (i * 1009) % ${14 * DAY}, ${variant}, false
   from ${range(UNITS)}`,
    `insert into track_events (project_id, key, attribute, unit, environment, at, value)
   select 'default', ${key}, 'user_id', ${unitOfEvent}, '', ${now - 28 * DAY} + (i * 7919) % ${28 * DAY}, (i % 100) / 4.0
   from ${range(EVENTS)}`,
  ]
}

async function results(
  srv: FlagServer,
  experiment: string,
  seed: () => Promise<void>,
  store: string,
  ingestPerSecond: number,
): Promise<ExperimentFigures> {
  const seeded = performance.now()
  await seed()
  const seedSeconds = (performance.now() - seeded) / 1000
  const rssBefore = rssKiB(srv.pid)
  const started = performance.now()
  const r = await call(srv, 'GET', `/api/v1/experiments/${experiment}/results?refresh=true`)
  const resultsMs = performance.now() - started
  if (r.status !== 200) throw new Error(`results answered ${r.status}: ${r.text}`)
  const body = JSON.parse(r.text)
  const units = (body.units.a ?? 0) + (body.units.b ?? 0)
  if (units !== UNITS) throw new Error(`expected ${UNITS} units, the results have ${units}`)
  const rssAfter = rssKiB(srv.pid)
  const cachedStart = performance.now()
  await call(srv, 'GET', `/api/v1/experiments/${experiment}/results`)
  const resultsCachedMs = performance.now() - cachedStart
  const sums = body.metrics
    .map(
      (m: { metric: string; variants: { variant: string; mean: number }[] }) =>
        `${m.metric} ${m.variants.map((v) => `${v.variant} ${v.mean.toFixed(3)}`).join(' / ')}`,
    )
    .join('; ')
  console.log(
    `  ${store}: seeded ${fmtInt(UNITS)} units and ${fmtInt(EVENTS)} events in ${seedSeconds.toFixed(1)} s; ` +
      `results ${fmtMs(resultsMs)} (${resultsMs <= 15_000 ? 'within' : 'OVER'} 15 s), cached ${fmtMs(resultsCachedMs)}; ` +
      `RSS ${fmtInt(rssBefore / 1024)} -> ${fmtInt(rssAfter / 1024)} MiB (${sums})`,
  )
  return { store, ingestPerSecond, resultsMs, resultsCachedMs, rssBeforeMiB: rssBefore / 1024, rssAfterMiB: rssAfter / 1024, seedSeconds }
}

async function experimentIdOf(query: (q: string) => Promise<{ id: string }[]>, key: string): Promise<string> {
  const [row] = await query(`select id from experiments where key = '${key}'`)
  return row!.id
}

export async function benchExperimentsSqlite(): Promise<ExperimentFigures> {
  const srv = await startFlagServer('server (experiments, SQLite)', { EVENTS_PER_MINUTE: '1000000000' })
  try {
    const experiment = await setUp(srv, 'xp-flag', 'xp')
    const ingestPerSecond = await ingest(srv)
    console.log(`  SQLite: ingest ${fmtInt(ingestPerSecond)} events/s (${INGEST_BATCHES} batches of 1,000, 4 in flight)`)
    const dbPath = srv.databasePath!
    return await results(
      srv,
      experiment,
      async () => {
        const db = new Database(dbPath)
        db.exec('PRAGMA busy_timeout = 10000')
        const id = await experimentIdOf(async (q) => db.query(q).all() as { id: string }[], experiment)
        const range = (n: number) => `(with recursive s(i) as (select 0 union all select i + 1 from s where i < ${n - 1}) select i from s)`
        for (const statement of seedSql(id, Date.now(), range))
          db.exec(
            statement
              .replaceAll(', false', ', 0')
              .replace("lpad(cast(i as text), 7, '0')", "printf('%07d', i)")
              .replace(/lpad\(cast\(i \/ (\d+) as text\), 7, '0'\)/, "printf('%07d', i / $1)"),
          )
        db.exec('ANALYZE')
        db.close()
      },
      'SQLite',
      ingestPerSecond,
    )
  } finally {
    await srv.stop()
  }
}

export async function benchExperimentsPostgres(): Promise<ExperimentFigures | undefined> {
  const admin = postgres(PG_ADMIN, { max: 1, connect_timeout: 3, onnotice: () => {} })
  const name = `flagship_bench_${Date.now().toString(36)}`
  try {
    await admin.unsafe(`create database "${name}"`)
  } catch (e) {
    console.log(`  PostgreSQL: skipped (${(e as Error).message})`)
    await admin.end({ timeout: 1 })
    return undefined
  }
  const url = PG_ADMIN.replace(/\/[^/]*$/, `/${name}`)
  const srv = await startFlagServer('server (experiments, PostgreSQL)', { EVENTS_PER_MINUTE: '1000000000', DATABASE_URL: url })
  const db = postgres(url, { max: 1, onnotice: () => {} })
  try {
    const experiment = await setUp(srv, 'xp-flag', 'xp')
    const ingestPerSecond = await ingest(srv)
    console.log(`  PostgreSQL: ingest ${fmtInt(ingestPerSecond)} events/s (${INGEST_BATCHES} batches of 1,000, 4 in flight)`)
    return await results(
      srv,
      experiment,
      async () => {
        const id = await experimentIdOf((q) => db.unsafe(q) as unknown as Promise<{ id: string }[]>, experiment)
        for (const statement of seedSql(id, Date.now(), (n) => `generate_series(cast(0 as bigint), ${n - 1}) as s(i)`))
          await db.unsafe(statement.replace('(i % 100) / 4.0', '(i % 100) / 4.0::float8'))
        await db.unsafe('analyze exposures')
        await db.unsafe('analyze track_events')
      },
      'PostgreSQL',
      ingestPerSecond,
    )
  } finally {
    await srv.stop()
    await db.end({ timeout: 1 })
    await admin.unsafe(`drop database if exists "${name}"`).catch(() => {})
    await admin.end({ timeout: 1 })
  }
}

/** GET /flags/:key, a new user_id every request: a flag in a running experiment vs the same flag without. */
export async function benchExposureHotPath(): Promise<{ withExperiment: WrkResult; without: WrkResult; ratio: number }> {
  const srv = await startFlagServer('server (hot path)', { EXPOSURE_FLUSH_MS: '10000' })
  try {
    await setUp(srv, 'xp-flag', 'xp')
    await mustCall(
      srv,
      'POST',
      '/api/v1/flags',
      { key: 'plain-flag', enabled: true, variants: { a: 'A', b: 'B' }, default_variant: 'a', targeting: { rollout: split } },
      201,
    )
    const script = (key: string) =>
      luaScript(
        `xp-unique-${key}`,
        [
          'local n = 0',
          'request = function()',
          '  n = n + 1',
          `  return wrk.format("GET", "/api/v1/flags/${key}?context=" .. "%7B%22user_id%22%3A%22u" .. n .. ` +
            `"%22%2C%22environment%22%3A%22production%22%7D")`,
          'end',
          '',
        ].join('\n'),
      )
    const targets: Target[] = [
      {
        name: 'flag in a running experiment',
        url: `${srv.url}/api/v1/flags/xp-flag`,
        token: srv.token,
        script: script('xp-flag'),
        pid: srv.pid,
      },
      {
        name: 'the same flag, no experiment',
        url: `${srv.url}/api/v1/flags/plain-flag`,
        token: srv.token,
        script: script('plain-flag'),
        pid: srv.pid,
      },
    ]
    const [withExperiment, without] = (await interleaved(targets, 3, 2)) as [WrkResult, WrkResult]
    const ratio = roundRatio(withExperiment, without)
    console.log(`  in an experiment ${line(withExperiment)}`)
    console.log(`  without          ${line(without)}`)
    console.log(
      `  ratio per round: ${withExperiment.rounds!.map((v, i) => (v / without.rounds![i]!).toFixed(2)).join(', ')}; ` +
        `median ${ratio.toFixed(2)} (target >= 0.9)`,
    )
    return { withExperiment, without, ratio }
  } finally {
    await srv.stop()
  }
}

if (import.meta.main) {
  console.log(`experiments bench: bun ${Bun.version}, ${fmtInt(UNITS)} units, ${fmtInt(EVENTS)} events`)
  const stores = (process.env.BENCH_EXPERIMENT_STORES ?? 'sqlite,postgres').split(',')
  if (stores.includes('sqlite')) await benchExperimentsSqlite()
  if (stores.includes('postgres')) await benchExperimentsPostgres()
  if (process.env.BENCH_HOT_PATH !== '0') await benchExposureHotPath()
  process.exit(0)
}
