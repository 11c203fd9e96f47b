// Upgrades lose nothing: for every release's fixture under tests/fixtures/upgrade/v<version>/ (a SQLite
// database that release wrote, and what its API answered; made by tests/fixtures/upgrade/make.ts and never
// edited), today's server starts on a copy, applies its newer migrations, and answers every recorded read
// with at least what that release answered (new fields may appear; nothing recorded may change or go).
// It checks data, not a schema version, so it keeps passing as migrations are added.
import { describe, expect, test } from 'bun:test'
import { copyFileSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Database } from 'bun:sqlite'
import { api, startServer } from '../helpers/server'
import { tempDir } from '../helpers/temp'

const FIXTURES = join(import.meta.dir, '..', 'fixtures', 'upgrade')
const JOURNAL = join(import.meta.dir, '..', '..', 'drizzle', 'sqlite', 'meta', '_journal.json')
/** The recorded answer without what moves by itself: a token's last use is stamped by every request made with
 *  it, this test's included. */
const lasting = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(lasting)
    : value && typeof value === 'object'
      ? Object.fromEntries(
          Object.entries(value)
            .filter(([k]) => k !== 'last_used_at')
            .map(([k, v]) => [k, lasting(v)]),
        )
      : value

const releases = readdirSync(FIXTURES)
  .filter((d) => /^v\d+\.\d+\.\d+/.test(d))
  .sort()

test('there is at least one release fixture', () => {
  expect(releases.length).toBeGreaterThan(0)
})

for (const release of releases) {
  describe(`upgrading from ${release}`, () => {
    const expected = JSON.parse(readFileSync(join(FIXTURES, release, 'expected.json'), 'utf8'))
    const tokenOf = (name: string) => (name === 'reader' ? expected.reader_token : name)

    test('every recorded read answers the same after migrating; writes work; a restart keeps it all', async () => {
      const dbPath = join(tempDir('flagship-upgrade-'), 'flags.db')
      copyFileSync(join(FIXTURES, release, 'flags.db'), dbPath)
      let srv = await startServer({ dbPath, adminToken: expected.admin_token, env: { BOOTSTRAP_TOKEN: '' } })
      try {
        // Nothing new was bootstrapped over the old data.
        expect(srv.output()).not.toContain('ADMIN TOKEN')
        const check = async () => {
          for (const read of expected.reads) {
            const res = await api(srv, read.method, read.path, { token: tokenOf(read.token), body: read.body })
            expect({ read: `${read.method} ${read.path}`, status: res.status }).toEqual({
              read: `${read.method} ${read.path}`,
              status: 200,
            })
            expect(res.body).toMatchObject(lasting(read.response) as object)
          }
        }
        await check()
        // Every migration of today's release is applied.
        const db = new Database(dbPath, { readonly: true })
        const applied = db.query<{ n: number }, []>('select count(*) as n from __drizzle_migrations').get()!.n
        db.close()
        expect(applied).toBe(JSON.parse(readFileSync(JOURNAL, 'utf8')).entries.length)
        // The old data takes changes: a new flag next to the old ones, the old one edited with its version.
        const created = await api(srv, 'POST', '/api/v1/flags', {
          token: expected.admin_token,
          body: { key: 'after-upgrade', enabled: true, value: true },
        })
        expect(created.status).toBe(201)
        await srv.stop()
        srv = await startServer({ dbPath, adminToken: expected.admin_token, env: { BOOTSTRAP_TOKEN: '' } })
        const after = await api(srv, 'GET', '/api/v1/flags/after-upgrade', { token: expected.reader_token })
        expect(after.body).toEqual({ value: true, type: 'boolean', reason: 'default' })
        // Everything else still reads as recorded (the list, audit and counts have the new flag and its use now).
        for (const read of expected.reads.filter((r: { path: string }) => !/^\/api\/v1\/(flags\?|audit|usage)/.test(r.path))) {
          const res = await api(srv, read.method, read.path, { token: tokenOf(read.token), body: read.body })
          expect(res.body).toMatchObject(lasting(read.response) as object)
        }
      } finally {
        await srv.stop()
      }
    }, 60_000)
  })
}
