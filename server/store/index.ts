// server/store: persistence, and nothing else. The opened database (SQLite or PostgreSQL, database.ts) plus
// one repository per resource. Called by services (changes, inside their transaction) and by the read side
// (cache/, workers); it calls no one: no services, no HTTP, no events.
import type { Database } from './database'
import { documentRepository, type BodySql } from './documents'
import type { Bodies } from '../kinds'
import { projectRepository } from './projects'
import { tokenRepository } from './tokens'
import { webhookRepository } from './webhooks'
import { auditRepository } from './audit'
import { deliveryRepository } from './deliveries'
import { changeRepository, serverKeyRepository } from './changes'
import { usageRepository } from './usage'
import { scheduleRepository } from './schedules'
import { userRepository } from './users'
import { oidcStateRepository, sessionRepository } from './sessions'
import { instanceAuditRepository, invitationRepository } from './instance-audit'
import { policyRepository } from './policies'
import { changeRequestRepository } from './change-requests'
import { experimentRepository } from './experiments'
import { releasePlanRepository } from './release-plans'
import { exposureCounts, exposuresByDay, freshenStatistics, metricSums, type MetricSpec, type ResultsQuery } from './experiment-results'
import { relayBatchRepository } from './relay-batches'
import { sql } from 'drizzle-orm'
import type { Db } from './database'

export function createStore(database: Database) {
  const t = database.tables
  // A flag body's boolean (`archived`) and tag membership in SQL, per dialect. The field name is ours,
  // never a client's; a tag is a bound parameter.
  const body = t.flags.body
  const sqliteTags = sql`json_each(${body}, '$.tags')`
  const flagBody: BodySql =
    database.dialect === 'postgres'
      ? {
          flag: (field) => sql`coalesce((${body} ->> ${sql.raw(`'${field}'`)})::boolean, false)`,
          hasTag: (tag) => sql`coalesce(${body} -> 'tags', '[]'::jsonb) @> ${JSON.stringify([tag])}::jsonb`,
        }
      : {
          flag: (field) => sql`coalesce(json_extract(${body}, ${sql.raw(`'$.${field}'`)}), 0) = 1`,
          // (json_each walks a scalar as a one-item list: `tags` must be an array, as on PostgreSQL)
          hasTag: (tag) =>
            sql`(json_type(${body}, '$.tags') = 'array' and exists (select 1 from ${sqliteTags} where json_each.value = ${tag}))`,
        }
  async function lock(tx: Db, name: string): Promise<void> {
    // Typed as the SQLite builder (database-types.ts); on PostgreSQL it is drizzle's postgres-js database.
    if (database.dialect === 'postgres')
      await (tx as unknown as { execute(q: unknown): Promise<unknown> }).execute(sql`select pg_advisory_xact_lock(hashtext(${name}))`)
  }
  return {
    database,
    db: database.db,
    transaction: database.transaction,
    projects: projectRepository(t),
    // Each typed by its kind's stored body (kinds/).
    flags: documentRepository<Bodies['flag']>(t.flags, flagBody),
    configs: documentRepository<Bodies['config']>(t.configs),
    segments: documentRepository<Bodies['segment']>(t.segments),
    tokens: tokenRepository(t),
    webhooks: webhookRepository(t),
    audit: auditRepository(t),
    deliveries: deliveryRepository(t),
    changes: changeRepository(t),
    serverKeys: serverKeyRepository(t),
    usage: usageRepository(t),
    schedules: scheduleRepository(t),
    users: userRepository(t),
    sessions: sessionRepository(t),
    oidcStates: oidcStateRepository(t),
    instanceAudit: instanceAuditRepository(t),
    invitations: invitationRepository(t),
    policies: policyRepository(t),
    changeRequests: changeRequestRepository(t),
    experiments: experimentRepository(t, database.dialect),
    releasePlans: releasePlanRepository(t),
    /** the results' per-variant sums, in SQL (experiment-results.ts) */
    experimentResults: {
      metricSums: (db: Db, q: ResultsQuery, metrics: MetricSpec[]) => metricSums(db, database.dialect, q, metrics),
      exposureCounts: (db: Db, experimentId: string, phase: number) => exposureCounts(db, database.dialect, experimentId, phase),
      exposuresByDay: (db: Db, experimentId: string, phase: number) => exposuresByDay(db, database.dialect, experimentId, phase),
      freshenStatistics: (db: Db) => freshenStatistics(db, database.dialect),
    },
    relayBatches: relayBatchRepository(t),
    /** Serialises, until commit, the transactions of one project that change its prerequisite graph, so two
     *  writes that each close half of a cycle cannot both pass their check: PostgreSQL takes a transaction-level
     *  advisory lock; SQLite already runs one writing transaction at a time. */
    lockFlagGraph: (tx: Db, projectId: string): Promise<void> => lock(tx, `flag-graph:${projectId}`),
    /** The same kind of until-commit lock under any name (e.g. `owners`: two demotions cannot both pass). */
    lock,
  }
}
export type Store = ReturnType<typeof createStore>
export type { Db } from './database'
