// A started service loads what only some requests need on first use (docs/performance.md, 2026-11-29:
// memory and start time): the statistics (experiment results, release plans),
// prom-client (the first /metrics scrape), ioredis (only with REDIS_URL), openid-client (the first SSO
// sign-in) and postgres (only with a PostgreSQL DATABASE_URL).
import { expect, test } from 'bun:test'
import { join } from 'node:path'
import { startProcess } from '../helpers/child-process'
import { tempSqliteUrl } from '../helpers/temp'

test('the service starts without the statistics, prom-client, ioredis, postgres or openid-client; a scrape loads prom-client', async () => {
  const child = await startProcess('service', [process.execPath, join(import.meta.dir, '..', 'helpers', 'loaded-packages.ts')], {
    env: { ...process.env, DATABASE_URL: tempSqliteUrl() },
    ready: /"phase":"scraped".*\n/,
    timeoutMs: 60_000,
  })
  await child.proc.exited
  const lines = child
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{"phase"'))
    .map((l) => JSON.parse(l) as { phase: string; status?: number; loaded: string[] })
  expect(lines.find((l) => l.phase === 'started')?.loaded).toEqual([])
  const scraped = lines.find((l) => l.phase === 'scraped')!
  expect(scraped.status).toBe(200)
  expect(scraped.loaded).toEqual(['prom-client'])
})
