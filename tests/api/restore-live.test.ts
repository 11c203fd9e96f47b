// `restore` refuses a SQLite database a live service holds (server/store/service-lock.ts): it used to report
// success while the running service kept writing to the file it replaced, so a write the service had
// acknowledged was gone after the next start. With a real service process: refused, nothing changed, the
// service's writes survive its restart; once the service is stopped (or killed: the operating system drops
// the lock with the process) the same restore goes through. A second service on the same file is refused.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { runCli } from '../helpers/cli'
import { api, startServer, TEST_STORE, type TestServer } from '../helpers/server'
import { tempDir } from '../helpers/temp'

const createFlag = (srv: TestServer, key: string) =>
  api(srv, 'POST', '/api/v1/flags', { token: srv.adminToken, body: { key, enabled: true, value: true } })
const flagKeys = async (srv: TestServer) =>
  ((await api(srv, 'GET', '/api/v1/flags?limit=1000', { token: srv.adminToken })).body.flags as { key: string }[]).map((f) => f.key).sort()

describe.skipIf(TEST_STORE === 'postgres')('restore while the service runs (SQLite)', () => {
  let srv: TestServer
  let backup: string
  beforeAll(async () => {
    srv = await startServer({ dbPath: join(tempDir('flagship-live-'), 'flags.db') })
    expect((await createFlag(srv, 'in-backup')).status).toBe(201)
    backup = join(tempDir('flagship-live-backup-'), 'backup.db')
    expect(runCli(srv, 'backup', '--to', backup).code).toBe(0)
  })
  afterAll(() => srv?.stop())

  test('is refused, says why and how to stop the service, and changes nothing', async () => {
    const run = runCli(srv, 'restore', '--from', backup)
    expect(run.code).toBe(1)
    expect(run.err).toContain(`a running Flagship service is using ${srv.dbPath}`)
    expect(run.err).toContain('Stop the service first')
    expect(run.out).toBe('')
    expect(readdirSync(join(srv.dbPath, '..')).filter((f) => f.includes('before-restore'))).toEqual([])
    // The service keeps its database: a write acknowledged now is there after a restart.
    expect((await createFlag(srv, 'after-refusal')).status).toBe(201)
    await srv.stop()
    srv = await startServer({ dbPath: srv.dbPath, adminToken: srv.adminToken })
    expect(await flagKeys(srv)).toEqual(['after-refusal', 'in-backup'])
  })

  test('a second service on the same file is refused at start', async () => {
    await expect(startServer({ dbPath: srv.dbPath, adminToken: srv.adminToken })).rejects.toThrow(
      /another Flagship process .* is using the SQLite database/,
    )
    expect((await api(srv, 'GET', '/health')).status).toBe(200)
  })

  test('once the service is gone (even killed), the restore goes through', async () => {
    await srv.kill()
    const run = runCli(srv, 'restore', '--from', backup)
    expect(run).toMatchObject({ code: 0, err: '' })
    expect(existsSync(srv.dbPath)).toBe(true)
    srv = await startServer({ dbPath: srv.dbPath, adminToken: srv.adminToken })
    expect(await flagKeys(srv)).toEqual(['in-backup'])
  })
})
