// `npm run bench`: HTTP and engine benchmarks of the evaluation path, in one bounded run.
//
//   (a) a bare Bun.serve returning a fixed JSON body the size of (b)'s response (bench/bare-server.ts)
//   (a'') a bare Bun.serve answering with (b)'s own response, headers and body, prepared once: the floor;
//         (b)/(a'') is the evaluation figure (target >= 0.85)
//   (b) GET /api/v1/flags/:key?context=... on the real server, a flag with 3 rules + a rollout
//   (c) POST /api/v1/evaluate of 100 flags on the real server
//   (a') bare-server.ts doing only the contract's minimum (auth header, URL, six headers): (b)/(a)'s ceiling
//   (b') (b) with a new user_id in every request (no repeat for the server's context cache to find)
//   (o) POST /ofrep/v1/evaluate/flags/:key, the same flag and context through OFREP (target >= 0.8 of (b))
//   (a''') (a'') for (o)'s POST: reads the body, then sends (b)'s answer; (a''')/(a'') is (o)/(b)'s ceiling
//   (e) (b)'s 3 rules + rollout as production's own rules, asked with a key bound to production (the context
//       is in production): (e)/(a') >= 0.80
// measured with wrk, interleaved (a, b, c, b', a, b, ...) after a warm-up, with the server's instructions per
// request from `perf stat` where perf exists (BENCH_PERF=0 turns that off); then the in-process engine
// benchmark (bench/engine.ts); then a server holding 10,000 flags (created through the API): its
// resident memory, and GET /flags/:key throughput with 10 vs 10,000 flags in the project; then the change
// stream with 1,000 subscribers (bench/stream.ts): change-to-arrival p50/p99 and memory per idle subscriber;
// then relays (bench/edge.ts): a relay's evaluation GET throughput against its origin's, and 10,000
// subscribers on one relay: change-to-arrival p99 and memory per idle subscriber;
// then flags as code (bench/as-code.ts): plan and apply of a 10,000-flag document over HTTP;
// then flagship-sdk in process (bench/sdk.ts, pinned like the engine): its evaluate vs @openfeature/flagd-core
// and a hand-written evaluator on the same flag and contexts, on Node and on Bun (bench/sdk-compare.mjs);
// 10 vs 10,000 flags loaded, the browser bundle's sizes, change to served.
//
// Servers are pinned to CPU 0 and wrk to CPU 1 when `taskset` exists (the reference machine has 2 cores).
// Every process started here is stopped on exit, on error and on SIGINT/SIGTERM; a watchdog bounds the
// whole run (BENCH_MAX_SECONDS, default 1800: the relays add about three minutes); then experiments
// (bench/experiments.ts): ingest, results of 1,000,000 units and 5,000,000 events on SQLite and PostgreSQL, and
// a flag in a running experiment's throughput.
//
// Knobs (environment): BENCH_SECONDS (per wrk run, default 5), BENCH_ROUNDS (default 3),
// BENCH_CONNECTIONS (default 32), BENCH_FLAGS_LARGE (default 10000).
// Where the time of a request goes: bench/request-path.ts (the real server's request variants side by side).
import { cpus } from 'node:os'
import { join } from 'node:path'
import {
  BUN,
  CONNECTIONS,
  CONTEXT,
  ownRulesFlag,
  LARGE,
  LOAD_CPU,
  ROOT,
  ROUNDS,
  SECONDS,
  SERVER_CPU,
  call,
  cleanup,
  cpuPerRequest,
  elapsed,
  evalPath,
  fmtInt,
  fmtMs,
  fmtInstructions,
  hasTaskset,
  interleaved,
  uniqueContextScript,
  line,
  luaScript,
  median,
  pad,
  pinned,
  populate,
  rssKiB,
  spawnTracked,
  startBareServer,
  variantChainFlags,
  mustCall,
  startFloorServer,
  startFlagServer,
  verdict,
  best,
  loadavg,
  requireWrk,
  roundRatio,
  startSameAnswerServer,
  watchdog,
  within,
  wrk,
  type Target,
  type WrkResult,
} from './lib'
import type { SdkFigures } from './sdk'
import { benchStream, SUBSCRIBERS } from './stream'
import { benchAsCode } from './as-code'
import { benchExperimentsPostgres, benchExperimentsSqlite, benchExposureHotPath, EXPERIMENT_EVENTS, EXPERIMENT_UNITS } from './experiments'
import { benchEdge, EDGE_SUBSCRIBERS } from './edge'

// ---------------------------------------------------------------------------------------------------
// Main

const total = (r: WrkResult) => r.instructions!.user + r.instructions!.kernel

async function main(): Promise<void> {
  requireWrk()
  console.log(
    `flagship bench: ${cpus().length} CPUs, bun ${Bun.version}, wrk -t1 -c${CONNECTIONS} -d${SECONDS}s, ${ROUNDS} interleaved rounds`,
  )
  const loadStart = loadavg()
  console.log(
    `load average at start: ${loadStart} (other work on the machine disturbs the numbers; rounds are interleaved and medians reported)`,
  )
  console.log(
    hasTaskset
      ? `pinning: servers on CPU ${SERVER_CPU}, wrk on CPU ${LOAD_CPU} (taskset)`
      : 'pinning: none (taskset missing or a single CPU)',
  )

  // --- (a) (b) (c) ---------------------------------------------------------------------------------
  console.log(`\n[${elapsed()}] starting the real server (100 flags) and the bare Bun.serve`)
  const srv = await startFlagServer('server (100 flags)')
  const keys = await populate(srv, 100)
  const bResponse = await call(srv, 'GET', evalPath('bench-flag'))
  if (bResponse.status !== 200) throw new Error(`evaluation failed: ${bResponse.status} ${bResponse.text}`)
  const bulkBody = JSON.stringify({ context: CONTEXT, flags: keys })
  const bulkResponse = await call(srv, 'POST', '/api/v1/evaluate', JSON.parse(bulkBody))
  if (bulkResponse.status !== 200 || Object.keys(JSON.parse(bulkResponse.text).flags).length !== 100) {
    throw new Error(`bulk evaluation failed: ${bulkResponse.status} ${bulkResponse.text.slice(0, 300)}`)
  }
  // (v): the flag with 5 variants behind a 3-deep prerequisite chain (docs/lifecycle.md), same context.
  for (const f of variantChainFlags('bench-variants')) await mustCall(srv, 'POST', '/api/v1/flags', f, 201)
  const vResponse = await call(srv, 'GET', evalPath('bench-variants'))
  if (vResponse.status !== 200 || JSON.parse(vResponse.text).reason !== 'rollout')
    throw new Error(`variants evaluation failed: ${vResponse.status} ${vResponse.text}`)
  // (e): the same rules and rollout as production's own rules (docs/behaviour.md §4), same context.
  await mustCall(srv, 'POST', '/api/v1/flags', ownRulesFlag('bench-own'), 201)
  // An environment key (docs/teams.md): bound to production, as an application there holds.
  const productionKey = JSON.parse(
    await mustCall(
      srv,
      'POST',
      '/api/v1/tokens',
      { name: 'bench production key', project_id: 'default', permissions: ['read:flags'], environment: 'production' },
      201,
    ),
  ).token as string
  const eResponse = await call({ ...srv, token: productionKey }, 'GET', evalPath('bench-own'))
  if (eResponse.status !== 200 || eResponse.text !== bResponse.text)
    throw new Error(`own rules evaluation failed: ${eResponse.status} ${eResponse.text} (expected ${bResponse.text})`)
  const bare = await startBareServer(bResponse.text)
  const floor = await startFloorServer(bResponse.text, srv.token)
  // The service's own answer to (b), captured once, for the same-answer floor.
  const answered = await fetch(srv.url + evalPath('bench-flag'), { headers: { authorization: `Bearer ${srv.token}` } })
  const ownHeaders = Object.fromEntries([...answered.headers].filter(([k]) => k !== 'date' && k !== 'content-length'))
  const sameAnswer = await startSameAnswerServer(await answered.text(), ownHeaders)
  console.log(`  (a'') sends (b)'s own headers: ${Object.keys(ownHeaders).join(', ')}`)
  const bareBody = await (await fetch(bare.url)).text()
  if (bareBody.length !== bResponse.text.length) throw new Error('bare body size differs from the evaluation response')
  console.log(`  (b) response: ${bResponse.text} (${bResponse.text.length} bytes; (a) sends the same bytes)`)
  console.log(`  (c) request body ${bulkBody.length} bytes, response ${bulkResponse.text.length} bytes`)
  const postScript = luaScript(
    'evaluate',
    ['wrk.method = "POST"', 'wrk.headers["Content-Type"] = "application/json"', `wrk.body = [==[${bulkBody}]==]`, ''].join('\n'),
  )

  // OFREP single-flag evaluation of the same flag for the same context (OpenFeature's context shape).
  const ofrepBody = JSON.stringify({
    context: { targetingKey: CONTEXT.user_id, plan: CONTEXT.plan, environment: CONTEXT.environment, ...CONTEXT.custom },
  })
  const ofrepScript = luaScript(
    'ofrep',
    ['wrk.method = "POST"', 'wrk.headers["Content-Type"] = "application/json"', `wrk.body = [==[${ofrepBody}]==]`, ''].join('\n'),
  )
  const ofrepCheck = await fetch(`${srv.url}/ofrep/v1/evaluate/flags/bench-flag`, {
    method: 'POST',
    headers: { authorization: `Bearer ${srv.token}`, 'content-type': 'application/json' },
    body: ofrepBody,
  })
  if (ofrepCheck.status !== 200) throw new Error(`OFREP evaluation failed: ${ofrepCheck.status} ${await ofrepCheck.text()}`)
  const targets: Target[] = [
    { name: '(a) bare Bun.serve', url: bare.url + '/', pid: bare.pid },
    { name: '(b) GET /flags/:key (3 rules+rollout)', url: srv.url + evalPath('bench-flag'), token: srv.token, pid: srv.pid },
    { name: '(c) POST /evaluate (100 flags)', url: srv.url + '/api/v1/evaluate', token: srv.token, script: postScript, pid: srv.pid },
    { name: "(a') floor: auth header + URL + 6 headers", url: floor.url + evalPath('bench-flag'), token: srv.token, pid: floor.pid },
    // (b) repeats one context, which the server's context cache parses once; (b') never repeats one.
    {
      name: "(b') (b), a new user_id every request",
      url: srv.url + evalPath('bench-flag'),
      token: srv.token,
      script: uniqueContextScript('bench-flag'),
      pid: srv.pid,
    },
    {
      name: "(a'') same answer as (b), prepared once",
      url: sameAnswer.url + evalPath('bench-flag'),
      token: srv.token,
      pid: sameAnswer.pid,
    },
    {
      name: '(o) POST /ofrep/v1/evaluate/flags/:key',
      url: srv.url + '/ofrep/v1/evaluate/flags/bench-flag',
      token: srv.token,
      script: ofrepScript,
      pid: srv.pid,
    },
    {
      name: "(a''') (a'') for (o)'s POST, body read",
      url: sameAnswer.url + '/ofrep/v1/evaluate/flags/bench-flag',
      token: srv.token,
      script: ofrepScript,
      pid: sameAnswer.pid,
    },
    {
      name: '(v) GET /flags/:key (5 variants, 3-deep prerequisites)',
      url: srv.url + evalPath('bench-variants'),
      token: srv.token,
      pid: srv.pid,
    },
    {
      name: "(e) GET /flags/:key, production key (production's own 3 rules+rollout)",
      url: srv.url + evalPath('bench-own'),
      token: productionKey,
      pid: srv.pid,
    },
  ]
  console.log(`\n[${elapsed()}] HTTP: interleaved rounds`)
  // Server CPU time per request of every run (from /proc): on a noisy VM it moves far less than requests/s,
  // since another tenant's load takes wall time but not this process's CPU time.
  const cpu = cpuPerRequest(targets)
  const [a, b, c, aFloor, bUnique, aSame, o, aPost, v, e] = (await interleaved(targets, undefined, undefined, undefined, cpu.around)) as [
    WrkResult,
    WrkResult,
    WrkResult,
    WrkResult,
    WrkResult,
    WrkResult,
    WrkResult,
    WrkResult,
    WrkResult,
    WrkResult,
  ]
  const ratioVariants = roundRatio(v, aSame)
  const ratioOfrep = roundRatio(o, b)
  const ratioPost = roundRatio(aPost, aSame)
  const ratioSame = roundRatio(b, aSame)
  const sameRounds = b.rounds!.map((v, i) => (v / aSame.rounds![i]!).toFixed(2)).join(', ')
  const ratioFloor = roundRatio(aFloor, a)
  const ratio = roundRatio(b, a)
  const ratioUnique = roundRatio(bUnique, a)
  const roundRatios = b.rounds!.map((v, i) => (v / a.rounds![i]!).toFixed(2)).join(', ')
  console.log(`  medians over rounds (best round in brackets):`)
  console.log(`    (a) bare Bun.serve                  ${line(a)} [${fmtInt(best(a))} req/s]`)
  console.log(`    (b) GET /api/v1/flags/:key          ${line(b)} [${fmtInt(best(b))} req/s]`)
  console.log(`    (c) POST /api/v1/evaluate x100      ${line(c)} [${fmtInt(best(c))} req/s] = ${fmtInt(c.rps * 100)} flag evals/s`)
  console.log(`    (a'') same answer, prepared once     ${line(aSame)} [${fmtInt(best(aSame))} req/s]`)
  console.log(`    (b)/(a) per round: ${roundRatios}; median ${ratio.toFixed(2)}; best/best ${(best(b) / best(a)).toFixed(2)}`)
  console.log(`    (o) POST /ofrep/…/flags/:key         ${line(o)}`)
  console.log(`    (a''') (a'') for a POST, body read   ${line(aPost)}`)
  console.log(`    (b)/(a'') per round: ${sameRounds}; median ${ratioSame.toFixed(2)}`)
  console.log(`    (v) GET, 5 variants + 3-deep chain   ${line(v)}; (v)/(a'') ${ratioVariants.toFixed(2)}`)
  console.log(
    `    (e) GET, production's own rules     ${line(e)}; ` +
      `(e)/(a') ${roundRatio(e, aFloor).toFixed(2)}, (b)/(a') ${roundRatio(b, aFloor).toFixed(2)}`,
  )
  // The same ratios by server CPU time per request: (a')'s µs over (x)'s, per round, median. Indexes are
  // positions in `targets` (the order destructured above).
  const [B, A_FLOOR, E] = [1, 3, 9]
  const cpuUs = (x: number) => median(cpu.perRequest[x]!)
  const cpuRatio = (x: number) => median(cpu.perRequest[x]!.map((us, r) => cpu.perRequest[A_FLOOR]![r]! / us))
  const cpuE = cpuRatio(E)
  console.log(
    `    by server CPU per request: (a') ${cpuUs(A_FLOOR).toFixed(1)} µs, (b) ${cpuUs(B).toFixed(1)} µs, ` +
      `(e) ${cpuUs(E).toFixed(1)} µs; (e)/(a') ${cpuE.toFixed(2)}, (b)/(a') ${cpuRatio(B).toFixed(2)}`,
  )

  // Latency without queueing: one connection.
  const bSingle = await wrk(targets[1]!, 3, 1)
  const aSingle = await wrk(targets[0]!, 3, 1)
  console.log(`  one connection (-c1, 3 s): (a) ${line(aSingle)}`)
  console.log(`                             (b) ${line(bSingle)}`)
  const rssMain = rssKiB(srv.pid)
  await bare.stop()
  await floor.stop()
  await sameAnswer.stop()
  await srv.stop()

  // --- engine ----------------------------------------------------------------------------------------
  console.log(`\n[${elapsed()}] engine, in process (bench/engine.ts)`)
  const engine = spawnTracked(pinned(SERVER_CPU, [BUN, join(ROOT, 'bench', 'engine.ts')]))
  const engineCode = await within(engine.proc.exited, 90_000)
  if (engineCode !== 0) throw new Error(`bench/engine.ts failed (${engineCode}):\n${engine.output()}`)
  await Bun.sleep(20)
  const engineOut = engine.output().trim()
  for (const l of engineOut.split('\n')) console.log(`  ${l}`)
  const engineRate = (label: string) =>
    Number((new RegExp(`engine ${label.replace(/[()+.]/g, '\\$&')}: ([\\d,]+) evals/s`).exec(engineOut)?.[1] ?? 'NaN').replace(/,/g, ''))
  const engineSimple = engineRate('simple flag')
  const engineTargeted = engineRate('3 rules + rollout')
  const engineHundred = engineRate('100 flags per context (flags evaluated)')
  const engineVariants = engineRate('5 variants + 3-deep prerequisites')
  const engineInProduction = engineRate("3 rules + rollout, all contexts in production (flag's rules)")
  const engineOwn = engineRate("3 rules + rollout as production's own rules")
  const engineWorst = /engine worst allowed flag: (.*)$/m.exec(engineOut)?.[1] ?? 'not measured'

  // --- 10 vs 10,000 flags ------------------------------------------------------------------------------
  console.log(`\n[${elapsed()}] 10 vs ${fmtInt(LARGE)} flags`)
  const small = await startFlagServer('server (10 flags)')
  await populate(small, 10)
  const large = await startFlagServer(`server (${LARGE} flags)`)
  const created = Date.now()
  const rssEmpty = rssKiB(large.pid)
  await populate(large, LARGE, 16)
  const createSeconds = (Date.now() - created) / 1000
  const listed = JSON.parse((await call(large, 'GET', '/api/v1/flags?limit=1')).text).total
  if (listed !== LARGE) throw new Error(`expected ${LARGE} flags, the server lists ${listed}`)
  console.log(
    `  created ${fmtInt(LARGE)} flags through the API in ${createSeconds.toFixed(1)} s ` +
      `(${fmtInt(LARGE / createSeconds)} creates/s, 16 in flight)`,
  )
  await Bun.sleep(1000)
  const rssSmall = rssKiB(small.pid)
  const rssLarge = rssKiB(large.pid)
  console.log(
    `  RSS: empty project ${fmtInt(rssEmpty / 1024)} MiB, 10 flags ${fmtInt(rssSmall / 1024)} MiB, ` +
      `${fmtInt(LARGE)} flags ${fmtInt(rssLarge / 1024)} MiB`,
  )
  const sizeTargets: Target[] = [
    { name: 'GET /flags/:key, 10 flags', url: small.url + evalPath('bench-flag'), token: small.token, pid: small.pid },
    { name: `GET /flags/:key, ${fmtInt(LARGE)} flags`, url: large.url + evalPath('bench-flag'), token: large.token, pid: large.pid },
  ]
  const [s10, sLarge] = (await interleaved(sizeTargets, ROUNDS, 2)) as [WrkResult, WrkResult]
  const rssLargeAfter = rssKiB(large.pid)
  const sizeRatio = roundRatio(sLarge, s10)
  console.log(`  medians:`)
  console.log(`    ${pad('10 flags', 12)} ${line(s10)}`)
  console.log(`    ${pad(`${fmtInt(LARGE)} flags`, 12)} ${line(sLarge)}`)
  console.log(
    `    ${fmtInt(LARGE)}/10 per round: ${sLarge.rounds!.map((v, i) => (v / s10.rounds![i]!).toFixed(2)).join(', ')}; ` +
      `median ${sizeRatio.toFixed(2)}`,
  )
  console.log(`  RSS of the ${fmtInt(LARGE)}-flag server after the load: ${fmtInt(rssLargeAfter / 1024)} MiB`)
  await small.stop()
  await large.stop()

  // --- flags as code ----------------------------------------------------------------------------------
  console.log(`\n[${elapsed()}] flags as code: plan and apply of ${fmtInt(LARGE)} flags (bench/as-code.ts)`)
  const asCode = await benchAsCode(LARGE)
  console.log(
    `  ${fmtInt(asCode.flags)} flags, ${(asCode.bytes / 1024 / 1024).toFixed(1)} MiB of JSON: ` +
      `plan ${fmtMs(asCode.planMs)}, apply ${fmtMs(asCode.applyMs)}, plan again (unchanged) ${fmtMs(asCode.replanMs)}`,
  )

  // --- change stream -----------------------------------------------------------------------------------
  console.log(`\n[${elapsed()}] change stream, ${fmtInt(SUBSCRIBERS)} subscribers (bench/stream.ts)`)
  const stream = await benchStream()

  // --- relays ------------------------------------------------------------------------------------------
  console.log(`\n[${elapsed()}] relay vs origin, ${fmtInt(EDGE_SUBSCRIBERS)} subscribers on the relay (bench/edge.ts)`)
  const edge = await benchEdge()

  // --- flagship-sdk ------------------------------------------------------------------------------------
  console.log(`\n[${elapsed()}] flagship-sdk in process (bench/sdk.ts)`)
  const sdkRun = spawnTracked(pinned(SERVER_CPU, [BUN, join(ROOT, 'bench', 'sdk.ts')]))
  const sdkCode = await within(sdkRun.proc.exited, 120_000)
  await Bun.sleep(20)
  const sdkOut = sdkRun.output().trim()
  if (sdkCode !== 0) throw new Error(`bench/sdk.ts failed (${sdkCode}):\n${sdkOut}`)
  for (const l of sdkOut.split('\n').filter((l) => !l.startsWith('SDK_FIGURES '))) console.log(`  ${l}`)
  const sdk = JSON.parse(/^SDK_FIGURES (.*)$/m.exec(sdkOut)![1]!) as SdkFigures
  const sdkLoaded = sdk.manyFlags / sdk.tenFlags - 1

  // --- experiments ---------------------------------------------------------------------------------
  console.log(
    `\n[${elapsed()}] experiments: ` +
      `ingest, results of ${fmtInt(EXPERIMENT_UNITS)} units and ${fmtInt(EXPERIMENT_EVENTS)} events, the hot path (bench/experiments.ts)`,
  )
  const xpHot = await benchExposureHotPath()
  const xpSqlite = await benchExperimentsSqlite()
  const xpPostgres = await benchExperimentsPostgres()
  const xpRows: [string, string, string][] = [xpSqlite, ...(xpPostgres ? [xpPostgres] : [])].flatMap(
    (x) =>
      [
        [`experiments ingest, ${x.store}`, `${fmtInt(x.ingestPerSecond)} events/s (POST /events, batches of 1,000)`, ''],
        [
          `experiments results, ${x.store}`,
          `${fmtMs(x.resultsMs)} (${fmtInt(EXPERIMENT_UNITS)} units, ${fmtInt(EXPERIMENT_EVENTS)} events, 2 metrics); ` +
            `RSS ${fmtInt(x.rssBeforeMiB)} -> ${fmtInt(x.rssAfterMiB)} MiB`,
          `target <= 15 s  ${verdict(x.resultsMs <= 15_000)}`,
        ],
      ] as [string, string, string][],
  )

  // --- summary ---------------------------------------------------------------------------------------
  const errors =
    a.errors +
    b.errors +
    c.errors +
    aFloor.errors +
    bUnique.errors +
    aSame.errors +
    o.errors +
    aPost.errors +
    s10.errors +
    sLarge.errors +
    edge.origin.errors +
    edge.relay.errors
  const rows: [string, string, string][] = [
    ['(a) bare Bun.serve', line(a), ''],
    ['(b) GET /api/v1/flags/:key', line(b), ''],
    ['(c) POST /api/v1/evaluate (100)', line(c), ''],
    ["(b') new user_id every request", line(bUnique), ''],
    [
      "(b)/(a'') throughput: the evaluation figure",
      `${ratioSame.toFixed(2)} (per round ${sameRounds})`,
      `target >= 0.85  ${verdict(ratioSame >= 0.85)}`,
    ],
    [
      "(v)/(a''): 5 variants + 3-deep prerequisites",
      `${ratioVariants.toFixed(2)} (${fmtInt(v.rps)} req/s; ` +
        `(a'') sends (b)'s answer, ${bResponse.text.length} vs ${vResponse.text.length} bytes)`,
      `target >= 0.85  ${verdict(ratioVariants >= 0.85)}`,
    ],
    [
      "(b)/(a') throughput (a' restamps per request)",
      roundRatio(b, aFloor).toFixed(2),
      `target >= 0.85  ${verdict(roundRatio(b, aFloor) >= 0.85)}`,
    ],
    [
      "(e)/(a'): the same rules as production's own",
      `${roundRatio(e, aFloor).toFixed(2)} (${fmtInt(e.rps)} req/s)`,
      `target >= 0.80  ${verdict(roundRatio(e, aFloor) >= 0.8)}`,
    ],
    ["(e)/(a') by server CPU per request", `${cpuE.toFixed(2)} (steadier than requests/s on a shared machine)`, ''],
    ...(aSame.instructions && b.instructions
      ? [
          [
            "(a'') / (b) instructions per request",
            `${fmtInstructions(aSame)} / ${fmtInstructions(b)} (ratio ${(total(aSame) / total(b)).toFixed(2)})`,
            '',
          ] as [string, string, string],
        ]
      : []),
    ['(b)/(a) throughput', `${ratio.toFixed(2)} (per round ${roundRatios})`, ''],
    ['(o)/(b): OFREP single POST vs GET', ratioOfrep.toFixed(2), `target >= 0.80  ${verdict(ratioOfrep >= 0.8)}`],
    ["(a''')/(a''): ceiling of (o)/(b) here", `${ratioPost.toFixed(2)} (a bare POST that reads its body vs a bare GET, same answer)`, ''],
    ["(b')/(a) throughput", ratioUnique.toFixed(2), ''],
    ["(a')/(a): ceiling of (b)/(a) here", `${ratioFloor.toFixed(2)} (auth header + URL + the 6 response headers, no evaluation)`, ''],
    [`(b) p99 at -c${CONNECTIONS}`, fmtMs(b.p99), `target < 2 ms   ${verdict(b.p99 < 2)}`],
    ['(b) p99 at -c1', fmtMs(bSingle.p99), `target < 2 ms   ${verdict(bSingle.p99 < 2)}`],
    ...(a.instructions && b.instructions
      ? [['(a) / (b) instructions per request', `${fmtInstructions(a)} / ${fmtInstructions(b)}`, ''] as [string, string, string]]
      : []),
    ['engine simple flag', `${fmtInt(engineSimple)} evals/s`, `target >= 2M    ${verdict(engineSimple >= 2_000_000)}`],
    ['engine 3 rules + rollout', `${fmtInt(engineTargeted)} evals/s`, ''],
    [
      "engine the same as production's own",
      `${fmtInt(engineOwn)} vs ${fmtInt(engineInProduction)} evals/s as the flag's (${(engineOwn / engineInProduction).toFixed(2)})`,
      '',
    ],
    ['engine 5 variants + 3-deep prereqs', `${fmtInt(engineVariants)} evals/s`, ''],
    ['engine 100 flags / context', `${fmtInt(engineHundred)} evals/s`, ''],
    ['engine worst allowed flag + context', engineWorst, ''],
    [
      `RSS, ${fmtInt(LARGE)} flags`,
      `${fmtInt(rssLarge / 1024)} MiB (10 flags: ${fmtInt(rssSmall / 1024)} MiB; ` +
        `100-flag server after load: ${fmtInt(rssMain / 1024)} MiB)`,
      '',
    ],
    ['eval req/s 10 flags', `${fmtInt(s10.rps)}`, ''],
    [
      `eval req/s ${fmtInt(LARGE)} flags`,
      `${fmtInt(sLarge.rps)} (${((sizeRatio - 1) * 100).toFixed(1)}% vs 10, median per round)`,
      `target +-10%    ${verdict(Math.abs(sizeRatio - 1) <= 0.1)}`,
    ],
    ...(s10.instructions && sLarge.instructions
      ? [
          [
            `instructions/req 10 vs ${fmtInt(LARGE)} flags`,
            `${fmtInstructions(s10)} vs ${fmtInstructions(sLarge)} (${((total(sLarge) / total(s10) - 1) * 100).toFixed(1)}%)`,
            '',
          ] as [string, string, string],
        ]
      : []),
    [
      `stream p50 / p99, ${fmtInt(stream.subscribers)} subscribers`,
      `${fmtMs(stream.p50)} / ${fmtMs(stream.p99)} (change sent -> arrival, ${stream.changes} changes)`,
      `target p99 < 100 ms  ${verdict(stream.p99 < 100)}`,
    ],
    ['stream: subscribers missing a change', String(stream.incomplete), `target 0  ${verdict(stream.incomplete === 0)}`],
    ['stream: memory per idle subscriber', `${fmtInt(stream.bytesPerSubscriber)} bytes (server RSS growth / subscribers)`, ''],
    [
      'relay / origin evaluation GET',
      `${edge.ratio.toFixed(2)} (${fmtInt(edge.relay.rps)} vs ${fmtInt(edge.origin.rps)} req/s; ` +
        `CPU/request ${edge.cpuRelay.toFixed(1)} vs ${edge.cpuOrigin.toFixed(1)} µs)`,
      `target >= 0.95  ${verdict(edge.ratio >= 0.95)}`,
    ],
    [
      'relay: change -> 1,000 subscribers',
      `p50 ${fmtMs(edge.smallP50)}, p99 ${fmtMs(edge.smallP99)} (PUT at the origin -> arrival)`,
      `target p99 < 50 ms  ${verdict(edge.smallP99 < 50)}`,
    ],
    [
      `relay: change -> ${fmtInt(edge.subscribers)} subscribers`,
      `p50 ${fmtMs(edge.p50)}, p99 ${fmtMs(edge.p99)}; missing ${edge.incomplete}; relay CPU ${fmtMs(edge.cpuMsPerChange)}/change`,
      `target p99 < 250 ms  ${verdict(edge.p99 < 250 && edge.incomplete === 0)}`,
    ],
    ['relay: memory per idle subscriber', `${fmtInt(edge.bytesPerSubscriber)} bytes (relay RSS growth / subscribers)`, ''],
    ...(edge.outage
      ? ([
          [
            `relay: origin down ${edge.outage.seconds} s under load`,
            `${line(edge.outage.load)}`,
            `target 0 errors  ${verdict(edge.outage.load.errors === 0)}`,
          ],
          [
            'relay: usage sent during the outage',
            `${fmtInt(edge.outage.reported)} sent, ${fmtInt(edge.outage.arrived)} arrived upstream`,
            `target exactly once  ${verdict(edge.outage.arrived === edge.outage.reported)}`,
          ],
        ] as [string, string, string][])
      : []),
    ...(sdk.node === null
      ? [['SDK on Node', 'node not found', 'target not measured'] as [string, string, string]]
      : ([
          [
            `SDK vs flagd-core, ${sdk.node.runtime}`,
            `${fmtInt(sdk.node.sdk)} vs ${fmtInt(sdk.node.flagd)} evals/s: ${sdk.node.ratio.toFixed(2)}x`,
            `target >= 2.5x  ${verdict(sdk.node.ratio >= 2.5)}`,
          ],
          [
            `SDK vs hand-written, ${sdk.node.runtime}`,
            `${fmtInt(sdk.node.sdk)} vs ${fmtInt(sdk.node.hand)} evals/s: ${sdk.node.handRatio.toFixed(2)}`,
            `target >= 0.8   ${verdict(sdk.node.handRatio >= 0.8)}`,
          ],
          [
            `SDK own rules vs the flag's, ${sdk.node.runtime}`,
            `${fmtInt(sdk.node.ownRules)} vs ${fmtInt(sdk.node.flagRules)} evals/s: ${sdk.node.ownRatio.toFixed(3)}`,
            `target >= 0.95  ${verdict(sdk.node.ownRatio >= 0.95)}`,
          ],
        ] as [string, string, string][])),
    [
      `SDK vs flagd-core, ${sdk.bun.runtime}`,
      `${fmtInt(sdk.bun.sdk)} vs ${fmtInt(sdk.bun.flagd)} evals/s: ${sdk.bun.ratio.toFixed(2)}x`,
      '',
    ],
    [
      `SDK vs hand-written, ${sdk.bun.runtime}`,
      `${fmtInt(sdk.bun.sdk)} vs ${fmtInt(sdk.bun.hand)} evals/s: ${sdk.bun.handRatio.toFixed(2)}`,
      '',
    ],
    [
      `SDK evaluate, 10 vs ${fmtInt(sdk.manyFlagsCount)} flags loaded`,
      `${fmtInt(sdk.tenFlags)} vs ${fmtInt(sdk.manyFlags)} evals/s (${(sdkLoaded * 100).toFixed(1)}%)`,
      `target +-10%    ${verdict(Math.abs(sdkLoaded) <= 0.1)}`,
    ],
    [
      'SDK browser bundle (min+gzip)',
      `${(sdk.upFrontBytes / 1024).toFixed(1)} kB up front, regex chunk ${(sdk.regexBytes / 1024).toFixed(1)} kB on demand`,
      `target < 15 kB  ${verdict(sdk.upFrontBytes < 15 * 1024)}`,
    ],
    [
      'SDK change -> served (stream)',
      `p50 ${fmtMs(sdk.changeP50)}, max ${fmtMs(sdk.changeMax)} (PUT sent -> evaluate answers it)`,
      `target < 1 s    ${verdict(sdk.changeMax < 1000)}`,
    ],
    [
      `as code: plan / apply ${fmtInt(asCode.flags)} flags`,
      `${fmtMs(asCode.planMs)} / ${fmtMs(asCode.applyMs)} (${(asCode.bytes / 1024 / 1024).toFixed(1)} MiB JSON; ` +
        `re-plan ${fmtMs(asCode.replanMs)})`,
      '',
    ],
    ...xpRows,
    [
      'flag in an experiment / without (new unit each request)',
      `${xpHot.ratio.toFixed(2)} (${fmtInt(xpHot.withExperiment.rps)} vs ${fmtInt(xpHot.without.rps)} req/s)`,
      `target >= 0.9   ${verdict(xpHot.ratio >= 0.9)}`,
    ],
    ['HTTP errors during load', String(errors), errors ? 'results suspect' : ''],
    ['load average start / end', `${loadStart} / ${loadavg()}`, ''],
  ]
  console.log(`\n==================== SUMMARY (${elapsed()}) ====================`)
  for (const [k, v, t] of rows) console.log(`${pad(k, 34)} ${pad(v, t ? 46 : 0)}${t ? ` ${t}` : ''}`.trimEnd())
  console.log('==============================================================')
}

try {
  await main()
} catch (e) {
  console.error(`\nbench failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`)
  process.exitCode = 1
} finally {
  clearTimeout(watchdog)
  cleanup()
  process.exit(process.exitCode ?? 0)
}
