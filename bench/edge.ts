// Relays (docs/operations.md, Relays), in one bounded run: (1) a relay's evaluation GET throughput against its
// origin's, same run, interleaved wrk rounds (target ratio >= 0.95); (2) change-to-arrival at a relay's
// subscribers, the change made at the origin (target p99 < 50 ms with 1,000 subscribers); (3) the same relay
// holding 10,000 subscribers: a change reaching every one (target p99 < 250 ms, client on the same machine)
// and the relay's memory per idle subscriber; (4) the origin killed for BENCH_EDGE_OUTAGE_S (default 30)
// under load (edge-outage.ts). Run by bench/run.ts; alone: `bun bench/edge.ts`.
//
// Subscribers are raw HTTP/1.1 sockets in this process (fetch caps connections per host). Each needs a file
// descriptor here and one in the relay: the soft limit is raised to the hard one where `prlimit` exists.
import { readFileSync } from 'node:fs'
import {
  call,
  cpuMs,
  cpuPerRequest,
  evalPath,
  fmtInt,
  fmtMs,
  interleaved,
  median,
  mustCall,
  ROUNDS,
  SECONDS,
  tempDirs,
  hasTaskset,
  LOAD_CPU,
  pinned,
  populate,
  roundRatio,
  rssKiB,
  spawnTracked,
  stopProcess,
  waitForPort,
  BUN,
  ROOT,
  SERVER_CPU,
  startFlagServer,
  type FlagServer,
  type WrkResult,
} from './lib'
import { join } from 'node:path'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { benchDatabaseUrl, benchOutage, OUTAGE_SECONDS, type OutageFigures } from './edge-outage'

export const EDGE_SUBSCRIBERS = Number(process.env.BENCH_EDGE_SUBSCRIBERS ?? 10_000)
const FIRST = Math.min(1000, EDGE_SUBSCRIBERS)
const CHANGES = Number(process.env.BENCH_EDGE_CHANGES ?? 10)

export interface EdgeFigures {
  origin: WrkResult
  relay: WrkResult
  ratio: number
  /** server CPU time per request (µs), median of the rounds */
  cpuOrigin: number
  cpuRelay: number
  /** change at the origin -> arrival at the relay's subscribers, FIRST of them */
  smallP50: number
  smallP99: number
  subscribers: number
  p50: number
  p99: number
  max: number
  incomplete: number
  bytesPerSubscriber: number
  /** the relay's CPU time (user + system) per change with every subscriber open: unlike wall-clock
   *  latency, barely moved by other work on the machine */
  cpuMsPerChange: number
  /** the machine's 1-minute load average during the measurement */
  load: string
  /** the origin away under load (edge-outage.ts); absent with BENCH_EDGE_OUTAGE_S=0 */
  outage?: OutageFigures
}

interface Sub {
  seen: Map<number, number>
  socket?: { end(): void }
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN

/** The soft limit on open files, raised to the hard limit for this process (its children inherit it). */
function raiseFileLimit(): number {
  if (Bun.which('prlimit')) Bun.spawnSync(['sh', '-c', `prlimit --pid ${process.pid} --nofile=$(ulimit -Hn):$(ulimit -Hn)`])
  const m = /Max open files\s+(\d+)/.exec(readFileSync('/proc/self/limits', 'utf8'))
  return m ? Number(m[1]) : Infinity
}

function subscribe(url: string, token: string, sub: Sub): Promise<void> {
  const { hostname, port } = new URL(url)
  const request =
    `GET /api/v1/stream HTTP/1.1\r\nHost: ${hostname}:${port}\r\n` + `Authorization: Bearer ${token}\r\nAccept: text/event-stream\r\n\r\n`
  let buffer = ''
  return new Promise((resolve, reject) => {
    Bun.connect({
      hostname,
      port: Number(port),
      socket: {
        open(socket) {
          sub.socket = socket
          socket.write(request)
        },
        data(_socket, chunk) {
          const now = performance.now()
          buffer += chunk.toString()
          for (let m; (m = /id: (\d+)\nevent: (\w+)/.exec(buffer)); buffer = buffer.slice(m.index + m[0].length)) {
            if (m[2] === 'ready') resolve()
            else sub.seen.set(Number(m[1]), now)
          }
          if (buffer.length > 4096) buffer = buffer.slice(-512)
        },
        error: (_s, e) => reject(e),
        connectError: (_s, e) => reject(e),
      },
    }).catch(reject)
  })
}

/** CHANGES changes at the origin; for each, the time from sending it to its arrival at every subscriber. */
async function measure(origin: FlagServer, subs: Sub[]): Promise<{ latencies: number[]; incomplete: number }> {
  const latencies: number[] = []
  const missed = new Set<Sub>()
  for (let i = 1; i <= CHANGES; i++) {
    const known = new Set(subs[0]!.seen.keys())
    const started = performance.now()
    await mustCall(origin, 'PUT', '/api/v1/flags/streamed', { value: i }, 200)
    let id: number | undefined
    const deadline = performance.now() + 5000
    while (performance.now() < deadline) {
      id ??= [...subs[0]!.seen.keys()].find((k) => !known.has(k))
      if (id !== undefined && subs.every((s) => s.seen.has(id!))) break
      await Bun.sleep(5)
    }
    if (id === undefined) throw new Error(`change ${i} never reached the first subscriber`)
    for (const s of subs) {
      const at = s.seen.get(id)
      if (at === undefined) missed.add(s)
      else latencies.push(at - started)
    }
    await Bun.sleep(50)
  }
  return { latencies: latencies.sort((a, b) => a - b), incomplete: missed.size }
}

export async function benchEdge(log: (line: string) => void = console.log): Promise<EdgeFigures> {
  const limit = raiseFileLimit()
  if (limit < EDGE_SUBSCRIBERS + 1000)
    throw new Error(
      `open-file limit ${limit} is too low for ${EDGE_SUBSCRIBERS} subscribers (one socket each, in this process and in the relay): ` +
        `raise it (ulimit -n) to ${EDGE_SUBSCRIBERS + 1000}`,
    )
  const dir = mkdtempSync(join(tmpdir(), 'flagship-bench-edge-'))
  tempDirs.push(dir)
  let origin = await startFlagServer('origin', { DATABASE_URL: benchDatabaseUrl(dir) })
  let relayProc: ReturnType<typeof spawnTracked>['proc'] | undefined
  try {
    await populate(origin, 100)
    await mustCall(origin, 'POST', '/api/v1/flags', { key: 'streamed', enabled: true, value: 0 }, 201)
    const key = JSON.parse(
      await mustCall(origin, 'POST', '/api/v1/tokens', { name: 'bench relay', project_id: 'default', permissions: ['relay'] }, 201),
    ).token as string
    // The relay: the same server, pinned like the origin, with no database of its own.
    const { proc, output } = spawnTracked(pinned(SERVER_CPU, [BUN, join(ROOT, 'server', 'index.ts')]), {
      PORT: '0',
      HOST: '127.0.0.1',
      APP_ENV: 'bench',
      REDIS_URL: '',
      DATABASE_URL: '',
      UPSTREAM_URL: origin.url,
      UPSTREAM_TOKEN: key,
      RATE_LIMIT_EVALUATION_PER_MINUTE: '1000000000',
      RATE_LIMIT_MANAGEMENT_PER_MINUTE: '1000000000',
    })
    relayProc = proc
    const relayUrl = `http://127.0.0.1:${await waitForPort('relay', proc, output)}`
    const relay: FlagServer = { name: 'relay', url: relayUrl, pid: proc.pid, token: origin.token, stop: () => stopProcess(proc) }
    for (let i = 0; i < 200 && (await fetch(`${relayUrl}/health/ready`)).status !== 200; i++) await Bun.sleep(50)
    const check = [await call(origin, 'GET', evalPath('bench-flag')), await call(relay, 'GET', evalPath('bench-flag'))]
    if (check[0]!.status !== 200 || check[1]!.text !== check[0]!.text)
      throw new Error(`relay answers differently: ${check[1]!.status} ${check[1]!.text}`)

    log('  evaluation GET, origin vs relay (interleaved wrk rounds; server CPU time per request alongside)')
    const targets = [
      { name: 'origin GET /flags/:key', url: origin.url + evalPath('bench-flag'), token: origin.token, pid: origin.pid },
      { name: 'relay  GET /flags/:key', url: relayUrl + evalPath('bench-flag'), token: origin.token, pid: proc.pid },
    ]
    // CPU time (user + system) each server spent per request while wrk ran.
    const cpu = cpuPerRequest(targets)
    const results = await interleaved(targets, ROUNDS, 2, SECONDS, cpu.around)
    const [o, r] = results
    const ratio = roundRatio(r!, o!)
    const cpuOrigin = median(cpu.perRequest[0]!)
    const cpuRelay = median(cpu.perRequest[1]!)
    log(
      `  relay / origin: ${ratio.toFixed(3)} requests/s (median of per-round ratios); ` +
        `CPU per request origin ${cpuOrigin.toFixed(1)} µs, relay ${cpuRelay.toFixed(1)} µs ` +
        `(origin/relay ${(cpuOrigin / cpuRelay).toFixed(3)})`,
    )

    // The subscribers' side (this process) on the load generator's core, the relay alone on its own, as
    // wrk and the servers are placed.
    if (hasTaskset) Bun.spawnSync(['taskset', '-a', '-p', '-c', String(LOAD_CPU), String(process.pid)])
    await Bun.sleep(1000)
    const rssBefore = rssKiB(proc.pid)
    const subs: Sub[] = Array.from({ length: EDGE_SUBSCRIBERS }, () => ({ seen: new Map() }))
    for (let i = 0; i < FIRST; i += 100) await Promise.all(subs.slice(i, i + 100).map((s) => subscribe(relayUrl, origin.token, s)))
    const small = await measure(origin, subs.slice(0, FIRST))
    log(
      `  ${fmtInt(FIRST)} relay subscribers, ${CHANGES} changes made at the origin: ` +
        `p50 ${fmtMs(percentile(small.latencies, 50))}, p99 ${fmtMs(percentile(small.latencies, 99))}`,
    )
    for (let i = FIRST; i < subs.length; i += 200)
      await Promise.all(subs.slice(i, i + 200).map((s) => subscribe(relayUrl, origin.token, s)))
    await Bun.sleep(2000)
    const rssIdle = rssKiB(proc.pid)
    const bytesPerSubscriber = ((rssIdle - rssBefore) * 1024) / EDGE_SUBSCRIBERS
    log(
      `  ${fmtInt(EDGE_SUBSCRIBERS)} subscribers open on the relay; its RSS ${fmtInt(rssBefore / 1024)} -> ${fmtInt(rssIdle / 1024)} MiB ` +
        `(${fmtInt(bytesPerSubscriber)} bytes each)`,
    )
    const cpuBefore = cpuMs(proc.pid)
    const all = await measure(origin, subs)
    const cpuMsPerChange = (cpuMs(proc.pid) - cpuBefore) / CHANGES
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ')[0]!
    const figures: EdgeFigures = {
      origin: o!,
      relay: r!,
      ratio,
      cpuOrigin,
      cpuRelay,
      smallP50: percentile(small.latencies, 50),
      smallP99: percentile(small.latencies, 99),
      subscribers: EDGE_SUBSCRIBERS,
      p50: percentile(all.latencies, 50),
      p99: percentile(all.latencies, 99),
      max: all.latencies.at(-1) ?? NaN,
      incomplete: all.incomplete,
      bytesPerSubscriber,
      cpuMsPerChange,
      load,
    }
    log(
      `  ${CHANGES} changes x ${fmtInt(EDGE_SUBSCRIBERS)} subscribers: ` +
        `p50 ${fmtMs(figures.p50)}, p99 ${fmtMs(figures.p99)}, max ${fmtMs(figures.max)}; ` +
        `subscribers missing a change: ${figures.incomplete}; ` +
        `relay CPU ${fmtMs(cpuMsPerChange)} per change (load average ${load})`,
    )
    subs.forEach((s) => s.socket?.end())
    if (OUTAGE_SECONDS > 0) {
      const outage = await benchOutage(origin, benchDatabaseUrl(dir), relayUrl, log)
      origin = outage.origin
      figures.outage = outage.figures
    }
    return figures
  } finally {
    if (relayProc) await stopProcess(relayProc)
    await origin.stop()
  }
}

if (import.meta.main) {
  await benchEdge()
  process.exit(0)
}
