// What single sign-on writes to the store (the transport writes nothing itself): pending sign-ins (table
// oidc_states) and the instance-audit entry of a refused sign-in. Used by http/routes/oidc.ts.
import type { Db, Store } from '../store'
import type { OidcStateStore, PendingSignIn } from './oidc'
import type { AuditEntry } from './users'

/** Pending sign-ins in the store (table oidc_states): every instance of a cluster can finish any of them. */
export class StoredOidcStates implements OidcStateStore {
  constructor(private readonly store: Store) {}
  async put(id: string, pending: PendingSignIn, expiresAt: Date): Promise<void> {
    // Writes go through the writer (a write on SQLite's reader connection would wait on an open transaction).
    await this.store.transaction((tx) => this.store.oidcStates.put(tx, { id, data: { ...pending }, expiresAt: expiresAt.toISOString() }))
  }
  async take(id: string, now: Date): Promise<PendingSignIn | undefined> {
    const row = await this.store.transaction((tx) => this.store.oidcStates.take(tx, id))
    return row && Date.parse(row.expiresAt) > now.getTime() ? (row.data as unknown as PendingSignIn) : undefined
  }
}

/** The instance-audit entry of a sign-in the provider's answer or the account refused (`reason`: its code). */
export async function auditRefusedOidcSignIn(
  store: Store,
  identity: { audit: (tx: Db, e: AuditEntry) => Promise<unknown> },
  reason: string,
  ip: string | null,
): Promise<void> {
  await store.transaction((tx) =>
    identity.audit(tx, {
      actor: 'oidc',
      actorType: 'user',
      action: 'sign_in_failed',
      resourceType: 'session',
      resourceKey: '',
      details: { method: 'oidc', reason },
      ip,
    }),
  )
}
