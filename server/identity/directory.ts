// Every user and their project memberships, in memory: sessions and personal tokens are authorised from
// here, so a management request never reads the database to learn who someone is or what they may do.
// Loaded at start, changed by change notices (`user`, `member`; from this instance or others through the
// cluster fan-out) and re-read whole by the periodic reconcile, which heals a missed notice.
import type { Store } from '../store'
import type { MembershipRow, UserRow } from '../store/users'
import type { ChangeNotice } from '../notices/changes'

export interface Person {
  user: UserRow
  /** projectId -> membership */
  memberships: Map<string, MembershipRow>
}

export class Directory {
  private people = new Map<string, Person>()
  private byEmailMap = new Map<string, string>()
  /** changes identity whenever anyone's rights may have changed (lets callers drop derived caches) */
  version: object = {}

  constructor(private store: Store) {}

  get(userId: string): Person | undefined {
    return this.people.get(userId)
  }

  byEmail(email: string): Person | undefined {
    const id = this.byEmailMap.get(email)
    return id === undefined ? undefined : this.people.get(id)
  }

  all(): Iterable<Person> {
    return this.people.values()
  }

  get size(): number {
    return this.people.size
  }

  async reload(): Promise<void> {
    const db = this.store.db
    const users = await this.store.users.all(db)
    const memberships = await this.store.users.allMemberships(db)
    const people = new Map<string, Person>(users.map((u) => [u.id, { user: u, memberships: new Map() }]))
    for (const m of memberships) people.get(m.userId)?.memberships.set(m.projectId, m)
    this.people = people
    this.byEmailMap = new Map(users.map((u) => [u.email, u.id]))
    this.version = {}
  }

  /** Re-reads one user and their memberships (after a change notice about them). */
  async refresh(userId: string): Promise<void> {
    const db = this.store.db
    const user = await this.store.users.get(db, userId)
    const old = this.people.get(userId)
    if (old) this.byEmailMap.delete(old.user.email)
    if (!user) this.people.delete(userId)
    else {
      const memberships = await this.store.users.memberships(db, userId)
      this.people.set(userId, { user, memberships: new Map(memberships.map((m) => [m.projectId, m])) })
      this.byEmailMap.set(user.email, userId)
    }
    this.version = {}
  }

  async apply(n: ChangeNotice): Promise<void> {
    if (n.resourceType === 'user' || n.resourceType === 'member') await this.refresh(n.resourceKey)
    // A deleted project takes its memberships with it.
    else if (n.resourceType === 'project') {
      const project = await this.store.projects.get(this.store.db, n.projectId)
      if (!project) {
        for (const p of this.people.values()) p.memberships.delete(n.projectId)
        this.version = {}
      }
    }
  }
}
