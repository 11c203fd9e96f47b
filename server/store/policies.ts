// Repository for environment policies (docs/change-requests.md §1). An environment without a row is not
// protected.
import { and, eq } from 'drizzle-orm'
import type { Db, Tables } from './database'

export type PolicyRow = Tables['environmentPolicies']['$inferSelect']

export function policyRepository(t: Tables) {
  const p = t.environmentPolicies
  return {
    byProject(db: Db, projectId: string): Promise<PolicyRow[]> {
      return db.select().from(p).where(eq(p.projectId, projectId))
    },
    async get(db: Db, projectId: string, environment: string): Promise<PolicyRow | undefined> {
      const [row] = await db
        .select()
        .from(p)
        .where(and(eq(p.projectId, projectId), eq(p.environment, environment)))
      return row
    },
    async put(db: Db, row: PolicyRow): Promise<void> {
      await db
        .insert(p)
        .values(row)
        .onConflictDoUpdate({
          target: [p.projectId, p.environment],
          set: {
            protected: row.protected,
            requiredApprovals: row.requiredApprovals,
            approverRole: row.approverRole,
            allowEmergencyOff: row.allowEmergencyOff,
            updatedAt: row.updatedAt,
          },
        })
    },
  }
}
export type PolicyRepository = ReturnType<typeof policyRepository>
