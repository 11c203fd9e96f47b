// How long the periodic reconcile (server/cache/snapshots.ts) takes for a project of 10,000 flags:
// `bun bench/reconcile.ts`. The flags are created through the API of a real server (as bench/run.ts does),
// then the snapshot is reconciled in this process against the same SQLite file: the first pass builds
// everything, the later ones are what every RECONCILE_INTERVAL_MS costs when nothing changed.
// Knobs: BENCH_FLAGS_LARGE (default 10000).
import { join } from 'node:path'
import { Snapshots } from '../server/cache/snapshots'
import { createStore } from '../server/store'
import { openDatabase } from '../server/store/database'
import { LARGE, cleanup, fmtInt, populate, startFlagServer, tempDirs, watchdog } from './lib'

try {
  const srv = await startFlagServer('server')
  await populate(srv, LARGE, 16)
  const dir = tempDirs.at(-1)!
  await srv.stop()
  const database = await openDatabase(`sqlite:${join(dir, 'flags.db')}`)
  const snapshots = new Snapshots(createStore(database))
  for (let pass = 1; pass <= 4; pass++) {
    const started = performance.now()
    await snapshots.reconcile()
    console.log(
      `reconcile of ${fmtInt(LARGE)} flags, pass ${pass}${pass === 1 ? ' (builds everything)' : ' (nothing changed)'}: ` +
        `${(performance.now() - started).toFixed(0)} ms`,
    )
  }
  await database.close()
} catch (e) {
  console.error(`\nreconcile bench failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`)
  process.exitCode = 1
} finally {
  clearTimeout(watchdog)
  cleanup()
  process.exit(process.exitCode ?? 0)
}
