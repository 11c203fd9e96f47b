// SQLite vs PostgreSQL (`npm run bench:stores`): evaluation throughput must be the same on both (the hot
// path is memory), and write throughput (flag updates per second: one transaction with the row, the audit
// entry and the change notice each) is printed for both. Needs wrk, and PostgreSQL on 127.0.0.1:5432.
import { createTestDatabase } from '../tests/helpers/postgres'
import {
  CONTEXT,
  cleanup,
  elapsed,
  evalPath,
  fmtInt,
  interleaved,
  line,
  luaScript,
  mustCall,
  pad,
  populate,
  requireWrk,
  roundRatio,
  startFlagServer,
  type Target,
} from './lib'

requireWrk()
const db = await createTestDatabase()
try {
  const sqlite = await startFlagServer('sqlite')
  const pg = await startFlagServer('postgres', { DATABASE_URL: db.url })
  for (const s of [sqlite, pg]) {
    await populate(s, 1)
    await mustCall(s, 'POST', '/api/v1/flags', { key: 'write-target', enabled: true, value: 0 }, 201)
  }
  console.log(`[${elapsed()}] servers ready; context ${JSON.stringify(CONTEXT)}`)

  const evalTargets: Target[] = [sqlite, pg].map((s) => ({ name: `eval ${s.name}`, url: s.url + evalPath('bench-flag'), token: s.token }))
  const [evSqlite, evPg] = await interleaved(evalTargets)

  const put = luaScript('put', `wrk.method = "PUT"\nwrk.body = '{"value":1}'\nwrk.headers["Content-Type"] = "application/json"\n`)
  const writeTargets: Target[] = [sqlite, pg].map((s) => ({
    name: `write ${s.name}`,
    url: `${s.url}/api/v1/flags/write-target`,
    token: s.token,
    script: put,
  }))
  const [wSqlite, wPg] = await interleaved(writeTargets, undefined, 1)

  console.log('\n==================== STORES ====================')
  console.log(`${pad('evaluation GET /flags/:key, SQLite', 40)} ${line(evSqlite)}`)
  console.log(`${pad('evaluation GET /flags/:key, PostgreSQL', 40)} ${line(evPg)}`)
  console.log(
    `${pad('evaluation PostgreSQL / SQLite', 40)} ${roundRatio(evPg, evSqlite).toFixed(2)}   ` +
      `(target ~1.0: the hot path never touches the store)`,
  )
  console.log(`${pad('flag updates (PUT), SQLite', 40)} ${line(wSqlite)}`)
  console.log(`${pad('flag updates (PUT), PostgreSQL', 40)} ${line(wPg)}`)
  console.log(`${pad('updates per second', 40)} SQLite ${fmtInt(wSqlite.rps)}, PostgreSQL ${fmtInt(wPg.rps)}`)
  console.log('=================================================')
  await Promise.all([sqlite.stop(), pg.stop()])
} finally {
  cleanup()
  await db.drop()
}
process.exit(0)
