// The store: the opened database plus one repository per resource.
import type { Database } from './database'
import { documentRepository } from './documents'
import { projectRepository } from './projects'
import { tokenRepository } from './tokens'
import { webhookRepository } from './webhooks'
import { auditRepository } from './audit'
import { deliveryRepository } from './deliveries'

export function createStore(database: Database) {
  const t = database.tables
  return {
    database,
    db: database.db,
    transaction: database.transaction,
    projects: projectRepository(t),
    flags: documentRepository(t.flags),
    configs: documentRepository(t.configs),
    segments: documentRepository(t.segments),
    tokens: tokenRepository(t),
    webhooks: webhookRepository(t),
    audit: auditRepository(t),
    deliveries: deliveryRepository(t),
  }
}
export type Store = ReturnType<typeof createStore>
export type { Db } from './database'
