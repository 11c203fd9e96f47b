// Where the time of an evaluation request goes: `bun bench/request-path.ts`.
// wrk against the bare Bun.serve and the real server's variants of a request, in interleaved rounds. With
// `perf` on the machine each row also gets the server's CPU instructions per request (user and kernel):
// unlike requests/s, that figure hardly moves when other work on the machine steals time, so it is the one
// to compare before and after a change (the server is CPU-bound on one core, so fewer instructions per
// request is more requests/s).
// Knobs: BENCH_SECONDS (default 3 here), BENCH_ROUNDS (default 2 here), BENCH_CONNECTIONS (32), BENCH_PERF=0.
import {
  CONNECTIONS,
  call,
  cleanup,
  elapsed,
  evalPath,
  hasPerf,
  interleaved,
  line,
  pad,
  populate,
  requireWrk,
  startBareServer,
  startFlagServer,
  uniqueContextScript,
  watchdog,
  type Target,
} from './lib'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2)

async function main(): Promise<void> {
  requireWrk()
  console.log(
    `request path: wrk -t1 -c${CONNECTIONS} -d${SECONDS}s, ${ROUNDS} interleaved rounds; ` +
      `instructions per request ${hasPerf ? 'from perf stat' : 'not counted (no perf)'}`,
  )
  const srv = await startFlagServer('server')
  await populate(srv, 10)
  await call(srv, 'POST', '/api/v1/configs', {
    key: 'bench-config',
    value: { theme: 'dark' },
    environments: { production: { value: { theme: 'light' } } },
  })
  const evaluated = await call(srv, 'GET', evalPath('bench-flag'))
  if (evaluated.status !== 200) throw new Error(`evaluation failed: ${evaluated.status} ${evaluated.text}`)
  const etag = (await fetch(srv.url + evalPath('bench-flag'), { headers: { authorization: `Bearer ${srv.token}` } })).headers.get('etag')!
  const bare = await startBareServer(evaluated.text)
  const own = { token: srv.token, pid: srv.pid }
  // An environment key (docs/teams.md): its evaluations fill in its environment.
  const envKey = JSON.parse(
    (
      await call(srv, 'POST', '/api/v1/tokens', {
        name: 'bench production key',
        project_id: 'default',
        permissions: ['read:flags', 'read:configs'],
        environment: 'production',
      })
    ).text,
  ).token as string
  const targets: Target[] = [
    { name: 'bare Bun.serve (a)', url: bare.url + evalPath('bench-flag'), pid: bare.pid },
    { name: 'GET /health (Elysia route)', url: srv.url + '/health', pid: srv.pid },
    { name: 'GET /flags/:key, no context', url: srv.url + '/api/v1/flags/bench-flag', ...own },
    { name: 'GET /flags/:key?context= (b)', url: srv.url + evalPath('bench-flag'), ...own },
    { name: '(b) with an environment key', url: srv.url + evalPath('bench-flag'), token: envKey, pid: srv.pid },
    { name: '(b), a new user_id every request', url: srv.url + evalPath('bench-flag'), script: uniqueContextScript('bench-flag'), ...own },
    { name: '(b) + If-None-Match -> 304', url: srv.url + evalPath('bench-flag'), headers: [`If-None-Match: ${etag}`], ...own },
    { name: 'GET /configs/:key?environment=', url: srv.url + '/api/v1/configs/bench-config?environment=production', ...own },
    { name: 'GET /flags/:key, no token (401)', url: srv.url + '/api/v1/flags/bench-flag', pid: srv.pid },
  ]
  const results = await interleaved(targets, ROUNDS, 1, SECONDS)
  const base = results[0]!
  const width = Math.max(...targets.map((t) => t.name.length)) + 1
  console.log(`\n==================== REQUEST PATH (${elapsed()}) ====================`)
  console.log(`${pad('', width)} ${pad('req/s', 16)} ${pad('p50 / p99', 28)} vs bare  us/req`)
  for (const [i, t] of targets.entries()) {
    const r = results[i]!
    console.log(`${pad(t.name, width)} ${line(r)}  ${pad((r.rps / base.rps).toFixed(2), 7)} ${(1e6 / r.rps).toFixed(1)}`)
  }
  console.log('(the 401 row counts its answers as errors: wrk calls every non-2xx/3xx one)')
  console.log('======================================================================')
  await bare.stop()
  await srv.stop()
}

try {
  await main()
} catch (e) {
  console.error(`\nrequest-path bench failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`)
  process.exitCode = 1
} finally {
  clearTimeout(watchdog)
  cleanup()
  process.exit(process.exitCode ?? 0)
}
