// Where the time of GET /api/v1/flags/:key goes: `bun bench/request-path.ts`.
// A ladder of servers, each adding one layer of the real request path (see bench/ladder-server.ts), measured
// with wrk in interleaved rounds next to the real server's /health, its evaluation without and with a
// context, and its 304 answer. The server is CPU-bound on one core, so 1e6 / (req/s) is roughly the
// server's CPU time per request; the step between two rungs is what that layer costs.
// Knobs: BENCH_SECONDS (default 3 here), BENCH_ROUNDS (default 2 here), BENCH_CONNECTIONS (32),
// BENCH_VARIANTS (comma-separated ladder-server variants), BENCH_REAL=0 (skip the real-server rows).
import {
  CONNECTIONS, call, cleanup, elapsed, evalPath, interleaved, line, pad, populate, requireWrk, startBareServer, startFlagServer,
  startScriptServer, watchdog, type Target,
} from './lib'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2)

async function main(): Promise<void> {
  requireWrk()
  console.log(`request path ladder: wrk -t1 -c${CONNECTIONS} -d${SECONDS}s, ${ROUNDS} interleaved rounds`)
  const srv = await startFlagServer('server')
  await populate(srv, 10)
  const evaluated = await call(srv, 'GET', evalPath('bench-flag'))
  if (evaluated.status !== 200) throw new Error(`evaluation failed: ${evaluated.status} ${evaluated.text}`)
  const etag = (await fetch(srv.url + evalPath('bench-flag'), { headers: { authorization: `Bearer ${srv.token}` } })).headers.get('etag')!
  const body = evaluated.text
  const servers = [await startBareServer(body)]
  const ladder: Target[] = [{ name: 'bare Bun.serve', url: servers[0]!.url + evalPath('bench-flag') }]
  const variants = (process.env.BENCH_VARIANTS ?? 'elysia-hello,elysia-query,elysia-hooks,elysia-full,bun-pipeline').split(',').filter(Boolean)
  for (const variant of variants) {
    const s = await startScriptServer(variant, 'ladder-server.ts', { BENCH_VARIANT: variant, BENCH_BODY: body, BENCH_TOKEN: srv.token })
    servers.push(s)
    ladder.push({ name: variant, url: s.url + evalPath('bench-flag'), token: srv.token })
  }
  const noContext = '/api/v1/flags/bench-flag'
  const real: Target[] = [
    { name: 'real GET /health', url: srv.url + '/health' },
    { name: 'real GET /flags/:key, no context', url: srv.url + noContext, token: srv.token },
    { name: 'real GET /flags/:key?context= (b)', url: srv.url + evalPath('bench-flag'), token: srv.token },
    { name: 'real (b) + If-None-Match -> 304', url: srv.url + evalPath('bench-flag'), token: srv.token, headers: [`If-None-Match: ${etag}`] },
    { name: 'real GET /flags/:key, no token (401)', url: srv.url + noContext },
  ]
  const targets = process.env.BENCH_REAL === '0' ? ladder : [...ladder, ...real]
  const results = await interleaved(targets, ROUNDS, 1, SECONDS)
  const base = results[0]!.rps
  const width = Math.max(...targets.map((t) => t.name.length)) + 1
  console.log(`\n==================== REQUEST PATH (${elapsed()}) ====================`)
  console.log(`${pad('', width)} ${pad('req/s', 16)} ${pad('p50 / p99', 28)} vs bare   us/req  step`)
  let prev = 0
  for (const [i, t] of targets.entries()) {
    const r = results[i]!
    const us = 1e6 / r.rps
    const step = i > 0 && i < ladder.length ? `+${(us - prev).toFixed(1)} us` : ''
    console.log(`${pad(t.name, width)} ${line(r).replace(/\s+$/, '')}  ${pad((r.rps / base).toFixed(2), 8)} ${pad(us.toFixed(1), 7)} ${step}`)
    if (i < ladder.length) prev = us
    if (i === ladder.length - 1) console.log('')
  }
  console.log('======================================================================')
  for (const s of servers) await s.stop()
  await srv.stop()
}

try {
  await main()
} catch (e) {
  console.error(`\nrequest-path bench failed: ${e instanceof Error ? e.stack ?? e.message : String(e)}`)
  process.exitCode = 1
} finally {
  clearTimeout(watchdog)
  cleanup()
  process.exit(process.exitCode ?? 0)
}
