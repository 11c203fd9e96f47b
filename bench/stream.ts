// Change stream under 1,000 concurrent subscribers (issue: "hold subscribers cheaply"): the time from a
// change to its arrival at each subscriber (p50, p99; every subscriber must get every change), and the
// server's memory per idle subscriber. Run by bench/run.ts; alone: `bun bench/stream.ts`.
//
// Subscribers are raw HTTP/1.1 sockets in this process (fetch would cap concurrent connections per host).
// A change's clock starts just before its PUT is sent, so the figure includes the write itself (request,
// commit) on top of the fan-out: an upper bound of commit-to-arrival.
import { fmtInt, fmtMs, rssKiB, startFlagServer, type FlagServer } from './lib'

export const SUBSCRIBERS = Number(process.env.BENCH_STREAM_SUBSCRIBERS ?? 1000)
const CHANGES = Number(process.env.BENCH_STREAM_CHANGES ?? 20)

export interface StreamFigures {
  subscribers: number
  changes: number
  p50: number
  p99: number
  max: number
  /** subscribers that missed at least one change */
  incomplete: number
  /** server resident memory per idle subscriber, bytes */
  bytesPerSubscriber: number
}

interface Sub {
  seen: Map<number, number>
  ready: boolean
  socket?: { end(): void }
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!

function subscribe(srv: FlagServer, sub: Sub): Promise<void> {
  const { hostname, port } = new URL(srv.url)
  const request =
    `GET /api/v1/stream HTTP/1.1\r\nHost: ${hostname}:${port}\r\n` +
    `Authorization: Bearer ${srv.token}\r\nAccept: text/event-stream\r\n\r\n`
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
          // Bun sends each event in one chunk; the ids are all this needs.
          for (let m; (m = /id: (\d+)\nevent: (\w+)/.exec(buffer)); buffer = buffer.slice(m.index + m[0].length)) {
            if (m[2] === 'ready') {
              sub.ready = true
              resolve()
            } else sub.seen.set(Number(m[1]), now)
          }
          if (buffer.length > 4096) buffer = buffer.slice(-512)
        },
        error: (_s, e) => reject(e),
        connectError: (_s, e) => reject(e),
      },
    }).catch(reject)
  })
}

export async function benchStream(log: (line: string) => void = console.log): Promise<StreamFigures> {
  const srv = await startFlagServer('server (stream)')
  try {
    const put = (value: number) =>
      fetch(`${srv.url}/api/v1/flags/streamed`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${srv.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ value }),
      })
    await fetch(`${srv.url}/api/v1/flags`, {
      method: 'POST',
      headers: { authorization: `Bearer ${srv.token}`, 'content-type': 'application/json' },
      body: '{"key":"streamed","enabled":true,"value":0}',
    })
    // Warm the server (JIT, stream code paths) with a few subscribers and changes before measuring memory.
    const warm: Sub[] = Array.from({ length: 20 }, () => ({ seen: new Map(), ready: false }))
    await Promise.all(warm.map((s) => subscribe(srv, s)))
    for (let i = 0; i < 5; i++) await (await put(-i)).text()
    warm.forEach((s) => s.socket?.end())
    await Bun.sleep(1000)
    const rssBefore = rssKiB(srv.pid)

    const subs: Sub[] = Array.from({ length: SUBSCRIBERS }, () => ({ seen: new Map(), ready: false }))
    for (let i = 0; i < subs.length; i += 100) await Promise.all(subs.slice(i, i + 100).map((s) => subscribe(srv, s)))
    await Bun.sleep(2000)
    const rssIdle = rssKiB(srv.pid)
    const bytesPerSubscriber = ((rssIdle - rssBefore) * 1024) / SUBSCRIBERS
    log(
      `  ${fmtInt(SUBSCRIBERS)} subscribers open; ` +
        `server RSS ${fmtInt(rssBefore / 1024)} -> ${fmtInt(rssIdle / 1024)} MiB (${fmtInt(bytesPerSubscriber)} bytes each)`,
    )

    const latencies: number[] = []
    const ids: number[] = []
    for (let i = 1; i <= CHANGES; i++) {
      const started = performance.now()
      const res = await put(i)
      const body = (await res.json()) as { flag: { version: number } }
      // The change number: the create was 1, warm-up changes followed; read it back from a subscriber.
      const deadline = performance.now() + 5000
      let id: number | undefined
      while (id === undefined && performance.now() < deadline) {
        await Bun.sleep(5)
        id = [...subs[0]!.seen.keys()].find((k) => !ids.includes(k))
      }
      if (id === undefined) throw new Error(`change ${i} (version ${body.flag.version}) never reached the first subscriber`)
      ids.push(id)
      await Bun.sleep(100)
      for (const s of subs) {
        const at = s.seen.get(id)
        if (at !== undefined) latencies.push(at - started)
      }
    }
    await Bun.sleep(500)
    const incomplete = subs.filter((s) => ids.some((id) => !s.seen.has(id))).length
    subs.forEach((s) => s.socket?.end())
    latencies.sort((a, b) => a - b)
    const figures = {
      subscribers: SUBSCRIBERS,
      changes: CHANGES,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      max: latencies.at(-1)!,
      incomplete,
      bytesPerSubscriber,
    }
    log(
      `  ${CHANGES} changes x ${fmtInt(SUBSCRIBERS)} subscribers: ` +
        `p50 ${fmtMs(figures.p50)}, p99 ${fmtMs(figures.p99)}, max ${fmtMs(figures.max)}; ` +
        `subscribers missing a change: ${incomplete}`,
    )
    return figures
  } finally {
    await srv.stop()
  }
}

if (import.meta.main) {
  await benchStream()
  process.exit(0)
}
