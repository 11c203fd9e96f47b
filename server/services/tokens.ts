// Access tokens: `ff_<4 chars of project id>_<20 random>`; only the SHA-256 hash is stored.
import { isIsoDate } from '../engine'
import type { Db } from '../store'
import type { TokenRow } from '../store/tokens'
import type { Actor, ServiceDeps } from './context'
import type { RecordChange } from './change-runner'
import { by } from './context'
import { notFound, validationError, inUse, forbidden, limitReached } from '../errors'
import { displayNameIssue } from './keys'
import { scheduleView } from './schedules'
import { hashToken, isExpired, tokenPrefixOf } from '../access/tokens'
// Re-exported for callers that make tokens; readers import them from access/tokens.ts.
export { expiryOf, hashToken, isExpired, tokenPrefixOf } from '../access/tokens'

import { PERMISSIONS, type Permission } from '../store/vocabulary/permissions'
export { PERMISSIONS, type Permission } from '../store/vocabulary/permissions'
const MAX_TOKENS_PER_PROJECT = 1000
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

/** 20 characters of [A-Za-z0-9] by rejection sampling over crypto random bytes (no modulo bias). */
function randomPart(): string {
  let out = ''
  while (out.length < 20) {
    for (const b of crypto.getRandomValues(new Uint8Array(32))) {
      if (b < 248 && out.length < 20) out += ALPHABET[b % 62]
    }
  }
  return out
}

export const newTokenPlaintext = (projectId: string): string => `ff_${projectId.slice(0, 4)}_${randomPart()}`

/** The wire form: never the plaintext; the hash identifies the token for deletion. */
export function tokenView(row: TokenRow) {
  return {
    hash: row.hash,
    name: row.name,
    token_prefix: row.tokenPrefix,
    project_id: row.projectId,
    permissions: row.permissions,
    expires_at: row.expiresAt,
    created_at: row.createdAt,
    last_used_at: row.lastUsedAt,
    ...(row.environments !== null && { environments: row.environments }),
    ...(row.environment !== null && { environment: row.environment }),
    ...(row.ownerUserId !== null && { owner: row.ownerUserId }),
    ...(row.createdByUserId !== null && { created_by: row.createdByUserId }),
  }
}
/** What the audit log keeps of a token: its view without the hash (and without the last use, which is no
 *  change); never the plaintext. */
const auditView = (row: TokenRow) => {
  const { hash: _hash, last_used_at: _lastUsed, ...kept } = tokenView(row)
  return kept
}
const eventData = (row: TokenRow) => ({ name: row.name, token_prefix: row.tokenPrefix, permissions: row.permissions })

export interface NewToken {
  name: string
  project_id: string
  permissions: string[]
  expires_at?: string | null
  /** limits write permissions to changes affecting only these environments (teams.md §1) */
  environments?: string[] | null
  /** an environment key: every evaluation runs in this environment, and write permissions are limited to
   *  changes affecting it only (environments.md §2); required for a client key */
  environment?: string | null
  /** a personal token's owner (user id) */
  owner_user_id?: string | null
  /** the person behind the credential that creates it (services/authorship.ts); null for bootstrap and the CLI */
  created_by_user_id?: string | null
}

/** What is wrong with a token's `environment` (environments.md §2) and `client` permission (edge.md §1). */
function environmentKeyIssues(input: NewToken, known: readonly string[]): { path: string; message: string }[] {
  const issues: { path: string; message: string }[] = []
  const env = input.environment
  if (env != null) {
    if (typeof env !== 'string' || !known.includes(env)) issues.push({ path: 'environment', message: `must be one of ${known.join(', ')}` })
    else if (
      input.environments != null &&
      (!Array.isArray(input.environments) || input.environments.some((e) => e !== env) || input.environments.length === 0)
    ) {
      issues.push({
        path: 'environments',
        message: `an environment key's write scope is its environment ("${env}") only: omit environments, or send ["${env}"]`,
      })
    }
  }
  if (Array.isArray(input.permissions) && input.permissions.includes('client')) {
    if (input.permissions.length > 1) issues.push({ path: 'permissions', message: 'a client key has the "client" permission only' })
    if (env == null) issues.push({ path: 'environment', message: 'a client key is bound to one environment: name it' })
  }
  return issues
}

/** Inserts a token row in an open transaction and returns the plaintext once. Shared by the API, bootstrap and the CLI. */
export async function insertToken(
  deps: Pick<ServiceDeps, 'store'>,
  tx: Db,
  input: NewToken,
  plaintext?: string,
): Promise<{ token: string; row: TokenRow }> {
  const issues: { path: string; message: string }[] = []
  const nameIssue = displayNameIssue(input.name)
  if (nameIssue) issues.push(nameIssue)
  if (!Array.isArray(input.permissions) || input.permissions.length === 0)
    issues.push({ path: 'permissions', message: 'must be a non-empty list' })
  else
    input.permissions.forEach((p, i) => {
      if (!(PERMISSIONS as readonly string[]).includes(p))
        issues.push({ path: `permissions[${i}]`, message: `must be one of ${PERMISSIONS.join(', ')}` })
    })
  if (input.expires_at != null && (typeof input.expires_at !== 'string' || !isIsoDate(input.expires_at)))
    issues.push({ path: 'expires_at', message: 'must be an ISO 8601 timestamp' })
  else if (input.expires_at != null && Date.parse(input.expires_at) <= Date.now())
    issues.push({ path: 'expires_at', message: 'must be in the future' })
  const known =
    input.environments != null || input.environment != null
      ? ((await deps.store.projects.get(tx, input.project_id))?.environments ?? [])
      : []
  if (input.environments != null) {
    if (!Array.isArray(input.environments)) issues.push({ path: 'environments', message: 'must be a list of environment names' })
    else
      input.environments.forEach((e, i) => {
        if (!known.includes(e)) issues.push({ path: `environments[${i}]`, message: `must be one of ${known.join(', ')}` })
      })
  }
  issues.push(...environmentKeyIssues(input, known))
  if (issues.length) throw validationError(issues)
  if ((await deps.store.tokens.count(tx, input.project_id)) >= MAX_TOKENS_PER_PROJECT) {
    throw limitReached(`A project holds at most ${MAX_TOKENS_PER_PROJECT} tokens`)
  }
  const token = plaintext ?? newTokenPlaintext(input.project_id)
  const row: TokenRow = {
    hash: hashToken(token),
    projectId: input.project_id,
    name: input.name,
    tokenPrefix: tokenPrefixOf(token),
    permissions: [...new Set(input.permissions as Permission[])],
    expiresAt: input.expires_at ? new Date(input.expires_at).toISOString() : null,
    createdAt: new Date().toISOString(),
    lastUsedAt: null,
    ownerUserId: input.owner_user_id ?? null,
    // An environment key's write scope is its one environment (the `environments` scope, of one).
    environments: input.environment != null ? [input.environment] : input.environments != null ? [...new Set(input.environments)] : null,
    environment: input.environment ?? null,
    createdByUserId: input.created_by_user_id ?? null,
  }
  await deps.store.tokens.insert(tx, row)
  return { token, row }
}

/** Deletes a token in an open transaction, audited, with its pending scheduled changes cancelled (a revoked
 *  token's scheduled changes must not run on its authority later), each with an audit entry of its own.
 *  `reason`: why, when it is not the caller's own request (kept in the audit entry). */
export async function revokeToken(
  deps: Pick<ServiceDeps, 'store'>,
  tx: Db,
  record: RecordChange,
  actor: Actor,
  row: TokenRow,
  reason?: string,
): Promise<void> {
  const { store } = deps
  await store.tokens.delete(tx, row.hash)
  await record({
    projectId: actor.projectId,
    ...by(actor),
    action: 'delete',
    resourceType: 'token',
    resourceKey: row.tokenPrefix,
    before: auditView(row),
    after: null,
    event: { kind: 'token.deleted', environment: '', data: eventData(row) },
    ...(reason !== undefined && { details: { reason } }),
  })
  const now = new Date().toISOString()
  for (const pending of await store.schedules.pendingByToken(tx, actor.projectId, row.hash)) {
    const cancelled = await store.schedules.cancel(tx, actor.projectId, pending.id, now, actor.name)
    if (cancelled)
      await record({
        projectId: actor.projectId,
        ...by(actor),
        action: 'update',
        resourceType: 'schedule',
        resourceKey: pending.id,
        before: scheduleView(pending),
        after: scheduleView(cancelled),
      })
  }
}

export function tokenService(deps: ServiceDeps) {
  const { store, changes } = deps
  return {
    page: (projectId: string, limit: number, offset: number) => store.tokens.page(store.db, projectId, limit, offset),

    /** `scope`: the creator's own environment scope (null: all) — nobody grants more than they have. */
    create(actor: Actor, input: NewToken, scope: string[] | null = null) {
      if (input.project_id !== actor.projectId) {
        throw forbidden('FORBIDDEN', 'A token can only create tokens for its own project', { required: '*', project_id: actor.projectId })
      }
      if (scope !== null) {
        const limits = input.environment != null ? [input.environment] : input.environments
        const outside = limits == null ? ['*'] : limits.filter((e) => !scope.includes(e))
        if (outside.length)
          throw forbidden('ENVIRONMENT_FORBIDDEN', `A token limited to ${scope.join(', ')} can only create tokens limited to those`, {
            required: '*',
            environments: outside,
          })
      }
      return changes.run(async (tx, record) => {
        const created = await insertToken(deps, tx, input)
        await record({
          projectId: actor.projectId,
          ...by(actor),
          action: 'create',
          resourceType: 'token',
          resourceKey: created.row.tokenPrefix,
          before: null,
          after: auditView(created.row),
          event: { kind: 'token.created', environment: '', data: eventData(created.row) },
        })
        return created
      })
    },

    /** Refuses to delete the project's last unexpired `*` token, which would lock admins out. */
    delete(actor: Actor, hash: string) {
      return changes.run(async (tx, record) => {
        const row = await store.tokens.get(tx, actor.projectId, hash)
        if (!row) throw notFound('NOT_FOUND', 'Token')
        if (row.permissions.includes('*') && !isExpired(row)) {
          const admins = (await store.tokens.byProject(tx, actor.projectId)).filter((t) => t.permissions.includes('*') && !isExpired(t))
          if (admins.length <= 1)
            throw inUse("Cannot delete the project's last unexpired admin (*) token", { token_prefix: row.tokenPrefix })
        }
        await revokeToken(deps, tx, record, actor, row)
      })
    },
  }
}
export type TokenService = ReturnType<typeof tokenService>
