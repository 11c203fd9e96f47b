// `npm run cli -- backup --to <file>` copies the live SQLite database while the server keeps writing, and
// `restore --from <file>` puts it back (keeping what it replaces); a server started on the restored file has
// everything the backup held. Bad input changes nothing. On PostgreSQL the CLI names pg_dump instead.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { existsSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { runCli } from '../helpers/cli'
import { api, startServer, TEST_STORE, type TestServer } from '../helpers/server'
import { tempDir } from '../helpers/temp'
import { createTestDatabase } from '../helpers/postgres'

let srv: TestServer
beforeAll(async () => {
  srv = await startServer()
})
afterAll(() => srv.stop())

const createFlag = (key: string) =>
  api(srv, 'POST', '/api/v1/flags', { token: srv.adminToken, body: { key, enabled: true, value: key.length } })
const flagKeys = async (s: TestServer) =>
  ((await api(s, 'GET', '/api/v1/flags?limit=1000', { token: srv.adminToken })).body.flags as { key: string }[]).map((f) => f.key).sort()

if (TEST_STORE === 'postgres') {
  test('on PostgreSQL, backup and restore name pg_dump and pg_restore', () => {
    for (const args of [
      ['backup', '--to', join(tempDir(), 'x.db')],
      ['restore', '--from', 'x.db'],
    ]) {
      const run = runCli(srv, ...args)
      expect(run.code).toBe(2)
      expect(run.err).toContain('pg_dump --format=custom')
      expect(run.err).toContain('pg_restore')
    }
  })

  test('the documented pg_dump and pg_restore commands carry a live database over whole', async () => {
    if (!Bun.which('pg_dump')) {
      if (process.env.CI === 'true') throw new Error('pg_dump is missing (apt-get install postgresql-client)')
      return
    }
    for (let i = 0; i < 5; i++) expect((await createFlag(`pg-${i}`)).status).toBe(201)
    const hint = runCli(srv, 'backup', '--to', 'x').err
    const dump = /pg_dump [^(]+?"\$DATABASE_URL"/.exec(hint)![0]
    const restore = /pg_restore [^)]+/.exec(hint)![0]
    const dir = tempDir('flagship-pgdump-')
    const target = await createTestDatabase()
    try {
      const sh = (command: string, url: string) =>
        Bun.spawnSync(['bash', '-c', command], { cwd: dir, env: { ...process.env, DATABASE_URL: url }, stdout: 'pipe', stderr: 'pipe' })
      const dumped = sh(dump, srv.databaseUrl)
      expect({ code: dumped.exitCode, err: dumped.stderr.toString() }).toEqual({ code: 0, err: '' })
      const restored = sh(restore, target.url)
      expect({ code: restored.exitCode, err: restored.stderr.toString() }).toEqual({ code: 0, err: '' })
      const copy = await startServer({ databaseUrl: target.url, adminToken: srv.adminToken })
      try {
        expect(await flagKeys(copy)).toEqual(await flagKeys(srv))
        expect((await api(copy, 'GET', '/api/v1/flags/pg-3/definition', { token: srv.adminToken })).body.flag.value).toBe(4)
      } finally {
        await copy.stop()
      }
    } finally {
      await target.drop()
    }
  })
} else {
  test('a backup taken while the server writes holds a consistent state; a restore brings it back', async () => {
    for (let i = 0; i < 20; i++) expect((await createFlag(`before-${i}`)).status).toBe(201)
    const dir = tempDir('flagship-backup-')
    const file = join(dir, 'flags-backup.db')
    // Writes keep going during the backup (each its own transaction): the copy holds each whole or not at all.
    let writing = true
    const writes = (async () => {
      for (let i = 0; writing; i++) expect((await createFlag(`during-${i}`)).status).toBe(201)
    })()
    await Bun.sleep(50)
    // Spawned without blocking this process, so the writes above really run alongside it.
    const proc = Bun.spawn([process.execPath, join(import.meta.dir, '..', '..', 'server', 'cli.ts'), 'backup', '--to', file], {
      env: { ...process.env, DATABASE_URL: srv.databaseUrl },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
    const run = { code: proc.exitCode, out, err }
    const duringBackup = (await flagKeys(srv)).filter((k) => k.startsWith('during-')).length
    writing = false
    await writes
    expect(duringBackup).toBeGreaterThan(0)
    expect(run).toMatchObject({ code: 0, err: '' })
    expect(run.out).toMatch(/^backed up .+ to .+flags-backup\.db \(\d+ bytes\)\n$/)
    expect(runCli(srv, 'backup', '--to', file)).toMatchObject({ code: 1, err: expect.stringContaining('already exists') })

    // Restore into a fresh place, and start a server there.
    const target = join(tempDir('flagship-restore-'), 'flags.db')
    expect(runCli({ databaseUrl: `sqlite:${target}` }, 'restore', '--from', file)).toMatchObject({ code: 0, err: '' })
    const restored = await startServer({ dbPath: target, adminToken: srv.adminToken })
    try {
      const keys = await flagKeys(restored)
      for (let i = 0; i < 20; i++) expect(keys).toContain(`before-${i}`)
      // Whatever was written during the backup is there as whole flags, each readable and evaluable.
      for (const key of keys.filter((k) => k.startsWith('during-')))
        expect((await api(restored, 'GET', `/api/v1/flags/${key}`, { token: srv.adminToken })).body.value).toBe(key.length)
      expect((await api(restored, 'GET', '/api/v1/audit?limit=1', { token: srv.adminToken })).status).toBe(200)
    } finally {
      await restored.stop()
    }

    // Restoring over an existing database keeps the replaced one beside it.
    const again = runCli({ databaseUrl: `sqlite:${target}` }, 'restore', '--from', file)
    expect(again.code).toBe(0)
    expect(again.out).toContain('the database it replaced is kept as')
    expect(readdirSync(join(target, '..')).some((f) => f.startsWith('flags.db.before-restore-'))).toBe(true)
  })

  test('restore refuses a file that is not a Flagship database and changes nothing', async () => {
    const dir = tempDir('flagship-restore-bad-')
    const junk = join(dir, 'junk.db')
    writeFileSync(junk, 'not a database at all, just text that is long enough to look like something')
    const target = join(dir, 'flags.db')
    for (const from of [junk, join(dir, 'missing.db')]) {
      const run = runCli({ databaseUrl: `sqlite:${target}` }, 'restore', '--from', from)
      expect(run.code).toBe(1)
      expect(run.err).toStartWith('error: ')
    }
    expect(existsSync(target)).toBe(false)
    expect(runCli(srv, 'backup').code).toBe(2)
  })
}
