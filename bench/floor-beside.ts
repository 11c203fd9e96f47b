// Where the rest of (b)'s distance to its floor lies (docs/performance.md, second 2026-11-28 section): the
// floor's handler (floor-handler.ts) on Bun's router, served by a bare process, by a process in which the
// service was started beside it, and by one in which it was started and stopped again. Server CPU time per
// request (from /proc) in interleaved wrk rounds, which hardly moves when other work takes the cores.
// `bun bench/floor-beside.ts` (BENCH_ROUNDS, BENCH_SECONDS). With BENCH_BESIDE set, this file is the server.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { floorHandler } from './floor-handler'
import {
  BUN,
  CONTEXT,
  ROOT,
  SERVER_CPU,
  cleanup,
  cpuPerRequest,
  evalPath,
  interleaved,
  median,
  pinned,
  requireWrk,
  spawnTracked,
  stopProcess,
  watchdog,
} from './lib'

const TOKEN = 'ff_defa_AAAAAAAAAAAAAAAAAAAA'
const BODY = '{"value":false,"type":"boolean","reason":"rollout"}'
const BESIDE = ['none', 'started', 'stopped'] as const

async function serve(beside: string): Promise<void> {
  if (beside !== 'none') {
    const dir = mkdtempSync(join(tmpdir(), 'flagship-beside-'))
    Object.assign(process.env, {
      PORT: '0',
      HOST: '127.0.0.1',
      BOOTSTRAP_TOKEN: TOKEN,
      APP_ENV: 'bench',
      DATABASE_URL: `sqlite:${join(dir, 'flags.db')}`,
      REDIS_URL: '',
    })
    const { loadSettings } = await import('../server/settings')
    const { startService } = await import('../server/index')
    const service = await startService(loadSettings())
    if (beside === 'stopped') await service.stop()
  }
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    routes: { '/api/v1/flags/:key': { GET: floorHandler(BODY, TOKEN) } },
    fetch: () => new Response('not found', { status: 404 }),
  })
  // Not the service's own "listening" line: the parent waits for this one.
  console.log(JSON.stringify({ msg: 'floor listening', port: server.port }))
}

async function start(beside: string) {
  const { proc, output } = spawnTracked(pinned(SERVER_CPU, [BUN, join(ROOT, 'bench', 'floor-beside.ts')]), { BENCH_BESIDE: beside })
  for (let i = 0; i < 1200; i++) {
    const m = /"msg":"floor listening","port":(\d+)/.exec(output())
    if (m)
      return {
        name: `floor, service ${beside}`,
        url: `http://127.0.0.1:${m[1]}${evalPath('bench-flag')}`,
        token: TOKEN,
        pid: proc.pid!,
        proc,
      }
    await Bun.sleep(100)
  }
  throw new Error(`the floor beside a ${beside} service did not start:\n${output().slice(-2000)}`)
}

async function main(): Promise<void> {
  requireWrk()
  const targets: Awaited<ReturnType<typeof start>>[] = []
  for (const beside of BESIDE) targets.push(await start(beside))
  const { perRequest: cpu, around } = cpuPerRequest(targets)
  await interleaved(targets, undefined, 2, undefined, around)
  console.log(`\nserver CPU per request (µs), per round and median; context ${JSON.stringify(CONTEXT).length} bytes`)
  for (const [i, t] of targets.entries())
    console.log(`  ${t.name.padEnd(26)} ${cpu[i]!.map((x) => x.toFixed(2)).join('  ')}   median ${median(cpu[i]!).toFixed(2)}`)
  for (const t of targets) await stopProcess(t.proc)
}

if (process.env.BENCH_BESIDE) await serve(process.env.BENCH_BESIDE)
else {
  try {
    await main()
  } catch (e) {
    console.error(`floor-beside bench failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`)
    process.exitCode = 1
  } finally {
    clearTimeout(watchdog)
    cleanup()
    process.exit(process.exitCode ?? 0)
  }
}
