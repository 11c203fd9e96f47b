// Repository for projects.
import { asc, eq } from 'drizzle-orm'
import type { Db, Tables } from './database'

export type ProjectRow = Tables['projects']['$inferSelect']

export function projectRepository(t: Tables) {
  return {
    async get(db: Db, id: string): Promise<ProjectRow | undefined> {
      const [row] = await db.select().from(t.projects).where(eq(t.projects.id, id))
      return row
    },
    async bySlug(db: Db, slug: string): Promise<ProjectRow | undefined> {
      const [row] = await db.select().from(t.projects).where(eq(t.projects.slug, slug))
      return row
    },
    all(db: Db): Promise<ProjectRow[]> {
      return db.select().from(t.projects).orderBy(asc(t.projects.id))
    },
    async insert(db: Db, row: ProjectRow): Promise<void> {
      await db.insert(t.projects).values(row)
    },
    /** Removes the project and everything that belongs to it (documents, tokens, webhooks and their
     *  deliveries, schedules, usage, the change stream, its audit log and its memberships). */
    async deleteEverything(db: Db, id: string): Promise<void> {
      for (const table of [
        t.flags,
        t.configs,
        t.segments,
        t.tokens,
        t.webhooks,
        t.deliveries,
        t.schedules,
        t.flagUsage,
        t.changes,
        t.changeSequences,
        t.audit,
        t.memberships,
      ]) {
        await db.delete(table).where(eq(table.projectId, id))
      }
      await db.delete(t.projects).where(eq(t.projects.id, id))
    },
    async update(db: Db, id: string, changes: Partial<Pick<ProjectRow, 'name' | 'slug' | 'environments' | 'updatedAt'>>): Promise<void> {
      await db.update(t.projects).set(changes).where(eq(t.projects.id, id))
    },
  }
}
export type ProjectRepository = ReturnType<typeof projectRepository>
