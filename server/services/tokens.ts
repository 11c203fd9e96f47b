// Access tokens: `ff_<4 chars of project id>_<20 random>`; only the SHA-256 hash is stored.
import { isIsoDate } from '../engine'
import type { Db } from '../store'
import type { TokenRow } from '../store/tokens'
import type { Actor, ServiceDeps } from './context'
import { by } from './context'
import { AppError, notFound, validationError } from '../errors'
import { displayNameIssue } from './keys'
import { scheduleView } from './schedules'

import { PERMISSIONS, type Permission } from '../store/vocabulary/permissions'
export { PERMISSIONS, type Permission } from '../store/vocabulary/permissions'
const MAX_TOKENS_PER_PROJECT = 1000
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

export const hashToken = (token: string): string => Bun.SHA256.hash(token, 'hex') as string

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
export const tokenPrefixOf = (token: string): string => token.slice(0, 12)

/** The wire form: never the plaintext; the hash identifies the token for deletion. */
export function tokenView(row: TokenRow) {
  return {
    hash: row.hash, name: row.name, token_prefix: row.tokenPrefix, project_id: row.projectId,
    permissions: row.permissions, expires_at: row.expiresAt, created_at: row.createdAt, last_used_at: row.lastUsedAt,
    ...(row.environments !== null && { environments: row.environments }),
    ...(row.ownerUserId !== null && { owner: row.ownerUserId }),
  }
}
/** What the audit log keeps of a token: no hash, no plaintext. */
const auditView = (row: TokenRow) => ({
  name: row.name, token_prefix: row.tokenPrefix, project_id: row.projectId, permissions: row.permissions, expires_at: row.expiresAt, created_at: row.createdAt,
  ...(row.environments !== null && { environments: row.environments }), ...(row.ownerUserId !== null && { owner: row.ownerUserId }),
})
const eventData = (row: TokenRow) => ({ name: row.name, token_prefix: row.tokenPrefix, permissions: row.permissions })

/** Unix ms from which the token is refused; Infinity when it never expires. */
export const expiryOf = (row: TokenRow): number => (row.expiresAt === null ? Infinity : Date.parse(row.expiresAt))
export const isExpired = (row: TokenRow, now = Date.now()): boolean => expiryOf(row) <= now

export interface NewToken {
  name: string
  project_id: string
  permissions: string[]
  expires_at?: string | null
  /** limits write permissions to changes affecting only these environments (teams.md §1) */
  environments?: string[] | null
  /** a personal token's owner (user id) */
  owner_user_id?: string | null
}

/** Inserts a token row in an open transaction and returns the plaintext once. Shared by the API, bootstrap and the CLI. */
export async function insertToken(deps: Pick<ServiceDeps, 'store'>, tx: Db, input: NewToken, plaintext?: string): Promise<{ token: string; row: TokenRow }> {
  const issues: { path: string; message: string }[] = []
  const nameIssue = displayNameIssue(input.name)
  if (nameIssue) issues.push(nameIssue)
  if (!Array.isArray(input.permissions) || input.permissions.length === 0) issues.push({ path: 'permissions', message: 'must be a non-empty list' })
  else input.permissions.forEach((p, i) => { if (!(PERMISSIONS as readonly string[]).includes(p)) issues.push({ path: `permissions[${i}]`, message: `must be one of ${PERMISSIONS.join(', ')}` }) })
  if (input.expires_at != null && (typeof input.expires_at !== 'string' || !isIsoDate(input.expires_at))) issues.push({ path: 'expires_at', message: 'must be an ISO 8601 timestamp' })
  else if (input.expires_at != null && Date.parse(input.expires_at) <= Date.now()) issues.push({ path: 'expires_at', message: 'must be in the future' })
  if (input.environments != null) {
    const project = await deps.store.projects.get(tx, input.project_id)
    const known = project?.environments ?? []
    if (!Array.isArray(input.environments)) issues.push({ path: 'environments', message: 'must be a list of environment names' })
    else input.environments.forEach((e, i) => { if (!known.includes(e)) issues.push({ path: `environments[${i}]`, message: `must be one of ${known.join(', ')}` }) })
  }
  if (issues.length) throw validationError(issues)
  if ((await deps.store.tokens.count(tx, input.project_id)) >= MAX_TOKENS_PER_PROJECT) {
    throw new AppError(409, 'LIMIT_REACHED', `A project holds at most ${MAX_TOKENS_PER_PROJECT} tokens`)
  }
  const token = plaintext ?? newTokenPlaintext(input.project_id)
  const row: TokenRow = {
    hash: hashToken(token), projectId: input.project_id, name: input.name, tokenPrefix: tokenPrefixOf(token),
    permissions: [...new Set(input.permissions as Permission[])], expiresAt: input.expires_at ? new Date(input.expires_at).toISOString() : null,
    createdAt: new Date().toISOString(), lastUsedAt: null, ownerUserId: input.owner_user_id ?? null,
    environments: input.environments != null ? [...new Set(input.environments)] : null, environment: null,
  }
  await deps.store.tokens.insert(tx, row)
  return { token, row }
}

export function tokenService(deps: ServiceDeps) {
  const { store, changes } = deps
  return {
    page: (projectId: string, limit: number, offset: number) => store.tokens.page(store.db, projectId, limit, offset),

    /** `scope`: the creator's own environment scope (null: all) — nobody grants more than they have. */
    create(actor: Actor, input: NewToken, scope: string[] | null = null) {
      if (input.project_id !== actor.projectId) {
        throw new AppError(403, 'FORBIDDEN', 'A token can only create tokens for its own project', { required: '*', project_id: actor.projectId })
      }
      if (scope !== null) {
        const outside = input.environments == null ? ['*'] : input.environments.filter((e) => !scope.includes(e))
        if (outside.length) throw new AppError(403, 'ENVIRONMENT_FORBIDDEN', `A token limited to ${scope.join(', ')} can only create tokens limited to those`, { required: '*', environments: outside })
      }
      return changes.run(async (tx, record) => {
        const created = await insertToken(deps, tx, input)
        await record({
          projectId: actor.projectId, ...by(actor), action: 'create', resourceType: 'token', resourceKey: created.row.tokenPrefix,
          before: null, after: auditView(created.row), event: { kind: 'token.created', environment: '', data: eventData(created.row) },
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
          if (admins.length <= 1) throw new AppError(409, 'IN_USE', "Cannot delete the project's last unexpired admin (*) token", { token_prefix: row.tokenPrefix })
        }
        await store.tokens.delete(tx, hash)
        await record({
          projectId: actor.projectId, ...by(actor), action: 'delete', resourceType: 'token', resourceKey: row.tokenPrefix,
          before: auditView(row), after: null, event: { kind: 'token.deleted', environment: '', data: eventData(row) },
        })
        // A revoked token's scheduled changes must not run on its authority later: each pending one is
        // cancelled in the same transaction, with an audit entry of its own.
        const now = new Date().toISOString()
        for (const pending of await store.schedules.pendingByToken(tx, actor.projectId, hash)) {
          const cancelled = await store.schedules.cancel(tx, actor.projectId, pending.id, now, actor.name)
          if (cancelled) await record({ projectId: actor.projectId, ...by(actor), action: 'update', resourceType: 'schedule', resourceKey: pending.id, before: scheduleView(pending), after: scheduleView(cancelled) })
        }
      })
    },
  }
}
export type TokenService = ReturnType<typeof tokenService>
