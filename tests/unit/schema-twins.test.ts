// The SQLite and PostgreSQL table declarations (server/store/schema*.sqlite.ts and schema*.pg.ts) are twins:
// one set of repositories serves both dialects, so each table must have the same name, the same columns
// (property and column names, nullability, primary key, uniqueness, whether a default fills it), the same
// composite primary keys, indexes (names, columns, uniqueness, partial or not), unique constraints and
// foreign keys in both. Column types may differ (text/integer in SQLite; jsonb, boolean, bigint in PostgreSQL).
import { expect, test } from 'bun:test'
import { getTableColumns, is, type Column } from 'drizzle-orm'
import { getTableConfig as sqliteConfig, SQLiteTable, sqliteTable, text as sqliteText, index as sqliteIndex } from 'drizzle-orm/sqlite-core'
import { getTableConfig as pgConfig, PgTable, pgTable, text as pgText, index as pgIndex } from 'drizzle-orm/pg-core'
import * as sqlite from '../../server/store/schema.sqlite'
import * as pg from '../../server/store/schema.pg'

const columnName = (c: unknown) => (c && typeof c === 'object' && 'name' in c ? String((c as Column).name) : '(expression)')
const sorted = <T>(list: T[]) => list.map((x) => JSON.stringify(x)).sort()

/** What must be the same in both dialects, from a table's Drizzle declaration. */
function shape(table: SQLiteTable | PgTable) {
  const config = is(table, SQLiteTable) ? sqliteConfig(table) : pgConfig(table as PgTable)
  return {
    name: config.name,
    columns: Object.entries(getTableColumns(table))
      .map(([key, c]) => ({ key, name: c.name, notNull: c.notNull, primary: c.primary, unique: c.isUnique, hasDefault: c.hasDefault }))
      .sort((a, b) => a.name.localeCompare(b.name)),
    primaryKeys: sorted(config.primaryKeys.map((k) => k.columns.map((c) => c.name))),
    indexes: sorted(
      config.indexes.map((i) => ({
        name: i.config.name,
        columns: i.config.columns.map(columnName),
        unique: i.config.unique,
        partial: i.config.where !== undefined,
      })),
    ),
    uniques: sorted(config.uniqueConstraints.map((u) => ({ name: u.name ?? null, columns: u.columns.map((c) => c.name) }))),
    foreignKeys: sorted(
      config.foreignKeys.map((f) => {
        const r = f.reference()
        return {
          columns: r.columns.map((c) => c.name),
          table: is(r.foreignTable, SQLiteTable) ? sqliteConfig(r.foreignTable).name : pgConfig(r.foreignTable as PgTable).name,
          foreign: r.foreignColumns.map((c) => c.name),
          onDelete: f.onDelete ?? null,
        }
      }),
    ),
  }
}

/** Every table a schema module exports, by its SQL name. */
function tables(module: Record<string, unknown>): Map<string, ReturnType<typeof shape>> {
  const out = new Map<string, ReturnType<typeof shape>>()
  for (const value of Object.values(module))
    if (is(value, SQLiteTable) || is(value, PgTable))
      out.set(shape(value as SQLiteTable | PgTable).name, shape(value as SQLiteTable | PgTable))
  return out
}

/** Each difference between the two declarations, one line per table and aspect. */
export function twinDifferences(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  const left = tables(a)
  const right = tables(b)
  const found: string[] = []
  for (const name of new Set([...left.keys(), ...right.keys()])) {
    const l = left.get(name)
    const r = right.get(name)
    if (!l || !r) {
      found.push(`${name}: only in ${l ? 'SQLite' : 'PostgreSQL'}`)
      continue
    }
    for (const aspect of ['columns', 'primaryKeys', 'indexes', 'uniques', 'foreignKeys'] as const) {
      if (JSON.stringify(l[aspect]) !== JSON.stringify(r[aspect]))
        found.push(`${name}: ${aspect} differ: ${JSON.stringify(l[aspect])} vs ${JSON.stringify(r[aspect])}`)
    }
  }
  return found.sort()
}

test('the SQLite and PostgreSQL schemas declare the same tables, columns, keys and indexes', () => {
  const names = [...tables(sqlite).keys()]
  expect(names.length).toBeGreaterThanOrEqual(30)
  // the experiments' and teams' tables are part of what is compared (re-exported by schema.*.ts)
  expect(names).toEqual(expect.arrayContaining(['flags', 'tokens', 'experiments', 'exposures', 'track_events', 'users', 'change_requests']))
  expect(twinDifferences(sqlite, pg)).toEqual([])
})

test('the twin check fails on a missing table, a column of other nullability or name, and an index apart', () => {
  const s = sqliteTable(
    'widgets',
    { id: sqliteText('id').primaryKey(), name: sqliteText('name').notNull(), owner: sqliteText('owner') },
    (t) => [sqliteIndex('widgets_owner_idx').on(t.owner)],
  )
  const nullable = pgTable('widgets', { id: pgText('id').primaryKey(), name: pgText('name'), owner: pgText('owner') }, (t) => [
    pgIndex('widgets_owner_idx').on(t.owner),
  ])
  const renamed = pgTable('widgets', { id: pgText('id').primaryKey(), name: pgText('name').notNull(), owner: pgText('owner_id') }, (t) => [
    pgIndex('widgets_owner_idx').on(t.owner),
  ])
  const unindexed = pgTable('widgets', { id: pgText('id').primaryKey(), name: pgText('name').notNull(), owner: pgText('owner') })
  const twin = pgTable('widgets', { id: pgText('id').primaryKey(), name: pgText('name').notNull(), owner: pgText('owner') }, (t) => [
    pgIndex('widgets_owner_idx').on(t.owner),
  ])
  expect(twinDifferences({ s }, { twin })).toEqual([])
  expect(twinDifferences({ s }, {})).toEqual(['widgets: only in SQLite'])
  const aspects = (found: string[]) => found.map((line) => line.split(' differ:')[0])
  expect(aspects(twinDifferences({ s }, { nullable }))).toEqual(['widgets: columns'])
  expect(aspects(twinDifferences({ s }, { renamed }))).toEqual(['widgets: columns', 'widgets: indexes'])
  expect(aspects(twinDifferences({ s }, { unindexed }))).toEqual(['widgets: indexes'])
  // and on the real schemas with one PostgreSQL table left out
  const { flags: _flags, ...withoutFlags } = pg
  expect(twinDifferences(sqlite, withoutFlags)).toContain('flags: only in SQLite')
})
