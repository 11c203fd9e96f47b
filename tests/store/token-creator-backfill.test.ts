// The protection migration's backfill (drizzle/*/…_protection.sql), in process on SQLite and PostgreSQL:
// tokens made before tokens recorded their creator take it from their creation's audit entry (a person by
// their email; a token made by another token, that token's creator); bootstrap and command-line tokens
// (created by `cli` or with no entry) keep none.
import { afterAll, describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import { openDatabase } from '../../server/store/database'
import { createStore, type Store } from '../../server/store'
import type { TokenRow } from '../../server/store/tokens'
import { createTestDatabase, type TestDatabase } from '../helpers/postgres'
import { requireServices } from '../helpers/requirements'
import { tempSqliteUrl } from '../helpers/temp'

const pgReady = await requireServices({ postgres: true })
const ROOT = join(import.meta.dir, '..', '..')

/** The UPDATE statements of the dialect's protection migration. */
function backfill(dialect: 'sqlite' | 'pg'): string[] {
  const dir = join(ROOT, 'drizzle', dialect)
  const file = readdirSync(dir).find((f) => f.endsWith('_protection.sql'))!
  return readFileSync(join(dir, file), 'utf8')
    .split('--> statement-breakpoint')
    .map((s) => s.trim())
    .filter((s) => /^(--[^\n]*\n)*UPDATE/.test(s))
}

for (const dialect of ['sqlite', 'postgres'] as const) {
  describe.skipIf(dialect === 'postgres' && !pgReady)(`token creator backfill: ${dialect}`, () => {
    let store: Store
    let pg: TestDatabase | undefined
    afterAll(async () => {
      await store?.database.close()
      await pg?.drop()
    })

    test('a person, a token made by a token, the command line, none', async () => {
      pg = dialect === 'postgres' ? await createTestDatabase() : undefined
      store = createStore(await openDatabase(pg?.url ?? tempSqliteUrl()))
      const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString()
      const token = (prefix: string, createdAt: string): TokenRow => ({
        hash: `h-${prefix}`,
        projectId: 'p1',
        name: prefix,
        tokenPrefix: prefix,
        permissions: ['*'],
        expiresAt: null,
        createdAt,
        lastUsedAt: null,
        ownerUserId: null,
        environments: null,
        environment: null,
        createdByUserId: null,
      })
      const created = (prefix: string, actor: string, actorType: string | null, timestamp: string) => ({
        projectId: 'p1',
        timestamp,
        actor,
        action: 'create' as const,
        resourceType: 'token' as const,
        resourceKey: prefix,
        actorType,
        credential: null,
        details: null,
        before: null,
        after: { name: prefix },
      })
      await store.transaction(async (tx) => {
        await store.users.insert(tx, {
          id: 'u-ann',
          email: 'ann@example.com',
          name: 'Ann',
          instanceRole: 'member',
          disabled: false,
          passwordHash: null,
          totpSecret: null,
          totpPending: null,
          totpLastStep: null,
          recoveryCodes: [],
          sso: false,
          createdAt: at(0),
          updatedAt: at(0),
          lastLoginAt: null,
        })
        for (const [prefix, s] of [
          ['ff_p1_boot', 1],
          ['ff_p1_ann1', 2],
          ['ff_p1_ci01', 3],
          ['ff_p1_ci02', 4],
          ['ff_p1_cli1', 5],
        ] as const)
          await store.tokens.insert(tx, token(prefix, at(s)))
        // ann made ff_p1_ann1 with her session; ff_p1_ann1 made ff_p1_ci01, which made ff_p1_ci02; the CLI made ff_p1_cli1
        await store.audit.insert(tx, created('ff_p1_ann1', 'ann@example.com', 'user', at(2)))
        await store.audit.insert(tx, created('ff_p1_ci01', 'ff_p1_ann1', 'token', at(3)))
        await store.audit.insert(tx, created('ff_p1_ci02', 'ff_p1_ci01', 'token', at(4)))
        await store.audit.insert(tx, created('ff_p1_cli1', 'cli', 'cli', at(5)))
      })
      const statements = backfill(dialect === 'postgres' ? 'pg' : 'sqlite')
      expect(statements.length).toBe(3)
      await store.transaction(async (tx) => {
        for (const s of statements) {
          const db = tx as unknown as { run?: (q: unknown) => Promise<unknown>; execute?: (q: unknown) => Promise<unknown> }
          await (db.run ? db.run(sql.raw(s)) : db.execute!(sql.raw(s)))
        }
      })
      const creators = Object.fromEntries((await store.tokens.byProject(store.db, 'p1')).map((t) => [t.tokenPrefix, t.createdByUserId]))
      expect(creators).toEqual({ ff_p1_boot: null, ff_p1_ann1: 'u-ann', ff_p1_ci01: 'u-ann', ff_p1_ci02: 'u-ann', ff_p1_cli1: null })
    })
  })
}
