// The origin away under load (bench/edge.ts runs it): wrk keeps evaluating at the relay while the origin is
// killed (SIGKILL) and, BENCH_EDGE_OUTAGE_S later (default 30), started again on the same address and
// database; meanwhile usage reports go to the relay. Figures: the relay's errors during the whole run (target
// 0), and whether every report arrived upstream exactly once after the origin came back.
import { join } from 'node:path'
import { fmtInt, line, mustCall, startFlagServer, wrk, type FlagServer, type WrkResult } from './lib'
import { evalPath } from './lib'

export const OUTAGE_SECONDS = Number(process.env.BENCH_EDGE_OUTAGE_S ?? 30)

export interface OutageFigures {
  seconds: number
  load: WrkResult
  reported: number
  arrived: number
  /** ms from the origin's restart to the last report arriving */
  drainedMs: number
}

/** `origin` must run on `databaseUrl`; the one started again is returned (the caller stops it). */
export async function benchOutage(
  origin: FlagServer,
  databaseUrl: string,
  relayUrl: string,
  log: (line: string) => void,
): Promise<{ figures: OutageFigures; origin: FlagServer }> {
  await mustCall(origin, 'POST', '/api/v1/flags', { key: 'outage-counted', enabled: true, value: true }, 201)
  const port = new URL(origin.url).port
  const usage = async (server: FlagServer) => {
    const res = await fetch(`${server.url}/api/v1/flags/outage-counted/usage?environment=production`, {
      headers: { authorization: `Bearer ${server.token}` },
    })
    const body = (await res.json()) as { buckets: { count: number }[] }
    return body.buckets.reduce((s, b) => s + b.count, 0)
  }
  const running = wrk({ name: 'relay during the outage', url: relayUrl + evalPath('bench-flag'), token: origin.token }, OUTAGE_SECONDS + 8)
  await Bun.sleep(3000)
  process.kill(origin.pid, 'SIGKILL')
  log(`  origin killed; reporting usage to the relay for ${OUTAGE_SECONDS} s`)
  let reported = 0
  const until = Date.now() + OUTAGE_SECONDS * 1000
  while (Date.now() < until) {
    const at = new Date().toISOString()
    const res = await fetch(`${relayUrl}/api/v1/usage`, {
      method: 'POST',
      headers: { authorization: `Bearer ${origin.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        counts: [{ key: 'outage-counted', environment: 'production', variant: 'default', count: 1, from: at, to: at }],
      }),
    })
    if (res.ok) reported++
    await res.arrayBuffer()
    await Bun.sleep(50)
  }
  const again = await startFlagServer('origin (again)', { DATABASE_URL: databaseUrl, PORT: port })
  const back = Date.now()
  const restarted: FlagServer = { ...again, token: origin.token }
  const load = await running
  let arrived = 0
  let drainedMs = NaN
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await Bun.sleep(200)) {
    arrived = await usage(restarted)
    if (arrived >= reported) {
      drainedMs = Date.now() - back
      break
    }
  }
  await Bun.sleep(2000)
  arrived = await usage(restarted)
  log(
    `  relay under load through the outage: ${line(load)}; ` +
      `usage reports ${fmtInt(reported)} sent, ${fmtInt(arrived)} arrived ` +
      `(${Number.isNaN(drainedMs) ? 'not all' : `all within ${fmtInt(drainedMs)} ms of the restart`})`,
  )
  return { figures: { seconds: OUTAGE_SECONDS, load, reported, arrived, drainedMs }, origin: restarted }
}

/** A database file of the bench's own, so the origin can be started again on it. */
export const benchDatabaseUrl = (dir: string) => `sqlite:${join(dir, 'origin.db')}`
