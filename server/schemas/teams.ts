// Wire schemas of people (teams.md): users, sign-in, sessions, memberships, invitations, projects.
import { t, type Static } from 'elysia'
import { Dict, Timestamp } from './common'
import { Permission } from './admin'

/** An enum without a default: Elysia's UnionEnum carries `default: <first value>`, which would fill an
 *  omitted optional field (an invitation without instance_role would make an owner). */
const Enum = <const T extends string>(values: readonly T[], description?: string) =>
  t.Unsafe<T>(t.String({ enum: [...values], ...(description && { description }) }))
export const InstanceRole = Enum(['owner', 'admin', 'member'] as const)
export const ProjectRole = Enum(['viewer', 'editor', 'admin'] as const)
export const EnvironmentGrants = Dict(
  Enum(['viewer', 'editor'] as const),
  "environment name -> viewer | editor: replaces the role's write rights there",
)

export const User = t.Object(
  {
    id: t.String(),
    email: t.String(),
    name: t.String(),
    instance_role: InstanceRole,
    disabled: t.Boolean(),
    created_at: Timestamp,
    last_login_at: t.Nullable(Timestamp),
    has_password: t.Boolean(),
    has_totp: t.Boolean(),
    sso: t.Boolean(),
  },
  { title: 'User' },
)
export type User = Static<typeof User>

const Email = t.String({ maxLength: 254 })
const Password = t.String({ maxLength: 1024, description: '12-256 characters, not the email' })

export const AuthMethods = t.Object(
  {
    setup_needed: t.Boolean(),
    password: t.Boolean(),
    oidc: t.Array(t.Object({ id: t.String(), name: t.String() })),
  },
  { title: 'AuthMethods' },
)
export const Setup = t.Object(
  { setup_code: t.String({ maxLength: 256 }), email: Email, name: t.String({ maxLength: 200 }), password: Password },
  { title: 'Setup' },
)
export const Login = t.Object(
  {
    email: Email,
    password: Password,
    totp: t.Optional(t.String({ maxLength: 32, description: 'the two-factor code, or a recovery code' })),
  },
  { title: 'Login' },
)
export const SignedIn = t.Object({ user: User }, { title: 'SignedIn' })

export const PasswordChange = t.Object({ current_password: Password, new_password: Password }, { title: 'PasswordChange' })
export const Session = t.Object(
  {
    id: t.String(),
    created_at: Timestamp,
    last_seen_at: Timestamp,
    ip: t.Nullable(t.String()),
    user_agent: t.Nullable(t.String()),
    current: t.Boolean(),
  },
  { title: 'Session' },
)

export const ProjectAccess = t.Object(
  { id: t.String(), slug: t.String(), name: t.String(), role: ProjectRole, environments: EnvironmentGrants },
  { title: 'ProjectAccess' },
)
export const MeUser = t.Object(
  {
    kind: t.UnionEnum(['user']),
    user: User,
    projects: t.Array(ProjectAccess),
    project: t.Optional(ProjectAccess),
    permissions: t.Optional(t.Array(Permission)),
  },
  { title: 'MeUser' },
)
export const MeToken = t.Object(
  {
    kind: t.UnionEnum(['token']),
    name: t.String(),
    token_prefix: t.String(),
    project_id: t.String(),
    permissions: t.Array(Permission),
    expires_at: t.Nullable(Timestamp),
    environments: t.Nullable(t.Array(t.String())),
    environment: t.Optional(t.String({ description: 'an environment key: the environment every evaluation runs in' })),
    owner: t.Optional(t.String({ description: "a personal token's owner (email)" })),
  },
  { title: 'MeToken' },
)
