// SQLite tables for people (teams): users, sessions, project memberships, invitations, password resets,
// SSO identities and sign-in state, sign-in throttling and the instance audit log. Mirrored column-for-
// column by schema-teams.pg.ts. Secrets are stored only as SHA-256 (session values, invitation and reset
// tokens, recovery codes) or argon2id (passwords) hashes; TOTP secrets must be readable to verify codes.
import { sqliteTable, text, integer, primaryKey, index } from 'drizzle-orm/sqlite-core'
import type { EnvironmentGrants, InstanceRole, ProjectRole } from './vocabulary/roles'

const json = <T>(name: string) => text(name, { mode: 'json' }).$type<T>()
const bool = (name: string) => integer(name, { mode: 'boolean' })

export const users = sqliteTable('users', {
  id: text('id').primaryKey(),
  email: text('email').notNull().unique(),
  name: text('name').notNull(),
  instanceRole: text('instance_role').$type<InstanceRole>().notNull(),
  disabled: bool('disabled').notNull().default(false),
  passwordHash: text('password_hash'),
  /** the confirmed TOTP secret (base32); null: no two-factor */
  totpSecret: text('totp_secret'),
  /** a secret handed out by POST /me/totp and not yet confirmed */
  totpPending: text('totp_pending'),
  /** the last accepted TOTP time step: a code is accepted once */
  totpLastStep: integer('totp_last_step'),
  /** SHA-256 hashes of the unused recovery codes */
  recoveryCodes: json<string[]>('recovery_codes').notNull().default([]),
  /** created or linked by single sign-on */
  sso: bool('sso').notNull().default(false),
  createdAt: text('created_at').notNull(),
  updatedAt: text('updated_at').notNull(),
  lastLoginAt: text('last_login_at'),
})

export const sessions = sqliteTable(
  'sessions',
  {
    id: text('id').primaryKey(),
    /** SHA-256 of the cookie value */
    hash: text('hash').notNull().unique(),
    userId: text('user_id').notNull(),
    createdAt: text('created_at').notNull(),
    lastSeenAt: text('last_seen_at').notNull(),
    /** the absolute end (SESSION_MAX_HOURS after sign-in) */
    expiresAt: text('expires_at').notNull(),
    ip: text('ip'),
    userAgent: text('user_agent'),
  },
  (t) => [index('sessions_user_idx').on(t.userId)],
)

export const memberships = sqliteTable(
  'memberships',
  {
    projectId: text('project_id').notNull(),
    userId: text('user_id').notNull(),
    role: text('role').$type<ProjectRole>().notNull(),
    environments: json<EnvironmentGrants>('environments').notNull().default({}),
    /** `project` (granted by hand or invitation) or `sso` (mapped from a provider group) */
    via: text('via').$type<'project' | 'sso'>().notNull().default('project'),
    createdAt: text('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.userId] }), index('memberships_user_idx').on(t.userId)],
)

export const invitations = sqliteTable('invitations', {
  id: text('id').primaryKey(),
  hash: text('hash').notNull().unique(),
  email: text('email').notNull(),
  instanceRole: text('instance_role').$type<InstanceRole>().notNull(),
  projects: json<{ project: string; role: ProjectRole; environments: EnvironmentGrants }[]>('projects').notNull(),
  createdBy: text('created_by').notNull(),
  createdAt: text('created_at').notNull(),
  expiresAt: text('expires_at').notNull(),
  acceptedAt: text('accepted_at'),
})

export const passwordResets = sqliteTable('password_resets', {
  hash: text('hash').primaryKey(),
  userId: text('user_id').notNull(),
  createdAt: text('created_at').notNull(),
  expiresAt: text('expires_at').notNull(),
  usedAt: text('used_at'),
})

/** A user's account at an OpenID provider: linked by (issuer, subject), never by email alone. */
export const userIdentities = sqliteTable(
  'user_identities',
  {
    issuer: text('issuer').notNull(),
    subject: text('subject').notNull(),
    userId: text('user_id').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.issuer, t.subject] }), index('user_identities_user_idx').on(t.userId)],
)

/** OpenID sign-ins under way (state, nonce, PKCE verifier, return_to): single use, 10 minutes, shared
 *  by every instance. id: SHA-256 of the state value. */
export const oidcStates = sqliteTable('oidc_states', {
  id: text('id').primaryKey(),
  data: json<Record<string, unknown>>('data').notNull(),
  expiresAt: text('expires_at').notNull(),
})

/** Consecutive sign-in failures per account key (SHA-256 of the lower-cased email, known or not). */
export const loginFailures = sqliteTable('login_failures', {
  key: text('key').primaryKey(),
  failures: integer('failures').notNull(),
  /** unix ms before which the next attempt is refused */
  blockedUntil: integer('blocked_until').notNull(),
})

export const instanceAudit = sqliteTable(
  'instance_audit',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    timestamp: text('timestamp').notNull(),
    actor: text('actor').notNull(),
    actorType: text('actor_type').notNull(),
    action: text('action').notNull(),
    resourceType: text('resource_type').notNull(),
    resourceKey: text('resource_key').notNull(),
    details: json<Record<string, unknown>>('details'),
    ip: text('ip'),
  },
  (t) => [index('instance_audit_ts_idx').on(t.timestamp)],
)
