import { expect, test } from 'bun:test'
import { openDatabase } from '../../server/store/database'
import { createStore } from '../../server/store'
import { errorForLog } from '../../server/log'
import { createTestDatabase } from '../helpers/postgres'
import { requireServices } from '../helpers/requirements'

const ready = await requireServices({ postgres: true })

// Drizzle wraps PostgreSQL query failures in an error whose message lists the query's parameters.
test.skipIf(!ready)('a failed query is logged without its SQL parameters (they can hold secrets)', async () => {
  const db = await createTestDatabase()
  const database = await openDatabase(db.url)
  try {
    const store = createStore(database)
    const row = {
      id: 'same-id',
      projectId: 'p',
      url: 'https://example.com/h',
      secret: 'whsec-do-not-log',
      events: ['*' as const],
      createdAt: new Date().toISOString(),
    }
    await store.webhooks.insert(store.db, row)
    let caught: unknown
    try {
      await store.webhooks.insert(store.db, row) // primary key violation
    } catch (e) {
      caught = e
    }
    expect(String(caught)).toContain('whsec-do-not-log') // the raw error does carry it...
    const logged = JSON.stringify(errorForLog(caught))
    expect(logged).not.toContain('whsec-do-not-log') // ...what we log does not
    expect(logged).toContain('23505') // but the database's own error code is kept
  } finally {
    await database.close()
    await db.drop()
  }
})
