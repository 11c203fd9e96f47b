// People: sign-in, setup, invitations, the signed-in user's account, members, users and projects
// (teams.md §3, §6). Wire shapes as the API documents them; calls go through api.ts's one client.
import { request, type Permission, type Project } from './api'
import type { EnvironmentGrants, InstanceRole, ProjectRole } from '../../server/store/vocabulary/roles'

export type { EnvironmentGrants, InstanceRole, ProjectRole }
export { INSTANCE_ROLES, PROJECT_ROLES, canWriteIn } from '../../server/store/vocabulary/roles'

export interface User {
  id: string
  email: string
  name: string
  instance_role: InstanceRole
  disabled: boolean
  created_at: string
  last_login_at: string | null
  has_password: boolean
  has_totp: boolean
  sso: boolean
}

/** A project as GET /me lists it for a person: with their role there. */
export interface MyProject {
  id: string
  slug: string
  name: string
  role: ProjectRole
  environments: EnvironmentGrants
}

/** GET /me for a session (with Flagship-Project: the project and the effective permissions there). */
export interface SessionMe {
  kind: 'user'
  user: User
  projects: MyProject[]
  project?: MyProject
  permissions?: Permission[]
}

export interface AuthMethods {
  setup_needed: boolean
  password: boolean
  oidc: { id: string; name: string }[]
}

export interface SessionInfo {
  id: string
  created_at: string
  last_seen_at: string
  ip: string | null
  user_agent: string | null
  current: boolean
}

export interface PersonalToken {
  id?: string
  name: string
  token_prefix: string
  hash?: string
  project?: string
  project_id?: string
  permissions: Permission[]
  environments?: string[] | null
  /** an environment key's environment */
  environment?: string
  expires_at: string | null
  created_at?: string
  last_used_at?: string | null
}

export interface Member {
  user: Pick<User, 'id' | 'email' | 'name'> & Partial<User>
  role: ProjectRole
  environments: EnvironmentGrants
  via?: string
}

export interface Invitation {
  id: string
  email: string
  instance_role?: InstanceRole
  projects?: { project: string; role: ProjectRole; environments?: EnvironmentGrants }[]
  expires_at: string
  created_at?: string
  accepted_at?: string | null
}

/** What an invitation is for, as its accept page shows it (POST /auth/invitations/lookup with its token). */
export interface InvitationPreview {
  email: string
  instance_role: InstanceRole
  projects: { id: string; slug: string; name: string; role: ProjectRole; environments: EnvironmentGrants }[]
  expires_at: string
}

export interface ProjectSummary {
  id: string
  slug: string
  name: string
  environments?: string[]
  created_at?: string
}

const enc = encodeURIComponent
const noProject = { project: null }

/** One entry of the instance audit log (GET /api/v1/admin/audit). */
export interface InstanceAuditEntry {
  id: number
  timestamp: string
  actor: string
  actor_type: string
  action: string
  resource_type: string
  resource_key: string
  details: unknown
  ip: string | null
}
export interface InstanceAuditFilter {
  action?: string
  resource_type?: string
  actor?: string
  since?: string
  until?: string
  limit: number
  offset: number
}

export const teamsKeys = {
  methods: ['auth-methods'] as const,
  sessions: ['me', 'sessions'] as const,
  myTokens: ['me', 'tokens'] as const,
  projectBySlug: (slug: string) => ['project-by-slug', slug] as const,
  members: ['members'] as const,
  invitations: ['invitations'] as const,
  users: ['admin-users'] as const,
  instanceAudit: (f: InstanceAuditFilter) => ['admin-audit', f] as const,
  projects: ['projects'] as const,
}

export const teamsApi = {
  methods: () => request<AuthMethods>('GET', '/auth/methods', noProject),
  login: (body: { email: string; password: string; totp?: string }) =>
    request<{ user: User }>('POST', '/auth/login', { body, ...noProject }),
  setup: (body: { setup_code: string; email: string; name: string; password: string }) =>
    request<{ user: User }>('POST', '/auth/setup', { body, ...noProject }),
  logout: () => request<unknown>('POST', '/auth/logout', noProject),
  usePasswordReset: (body: { token: string; password: string }) => request<unknown>('POST', '/auth/password-reset', { body, ...noProject }),
  acceptInvitation: (body: { token: string; name: string; password: string }) =>
    request<{ user: User }>('POST', '/auth/invitations/accept', { body, ...noProject }),
  lookupInvitation: (token: string) => request<InvitationPreview>('POST', '/auth/invitations/lookup', { body: { token }, ...noProject }),

  changePassword: (body: { current_password: string; new_password: string }) =>
    request<unknown>('PUT', '/me/password', { body, ...noProject }),
  sessions: async () => (await request<{ sessions: SessionInfo[] }>('GET', '/me/sessions', noProject)).sessions,
  revokeSession: (id: string) => request<unknown>('DELETE', `/me/sessions/${enc(id)}`, noProject),
  startTotp: () => request<{ secret: string; otpauth_url: string }>('POST', '/me/totp', noProject),
  confirmTotp: (code: string) => request<{ recovery_codes: string[] }>('PUT', '/me/totp', { body: { code }, ...noProject }),
  disableTotp: (code: string) => request<unknown>('DELETE', '/me/totp', { body: { code }, ...noProject }),
  myTokens: async () => (await request<{ tokens: PersonalToken[] }>('GET', '/me/tokens', noProject)).tokens,
  createMyToken: (body: {
    name: string
    project: string
    permissions: Permission[]
    environments?: string[]
    environment?: string
    expires_at?: string
  }) => request<{ token: string; meta?: PersonalToken }>('POST', '/me/tokens', { body, ...noProject }),
  /** A project the person belongs to, by slug (its environments, for the personal-token form). */
  projectBySlug: (slug: string) => request<Project>('GET', '/project', { project: slug }),
  deleteMyToken: (id: string) => request<unknown>('DELETE', `/me/tokens/${enc(id)}`, noProject),

  members: async () => (await request<{ members: Member[] }>('GET', '/project/members')).members,
  putMember: (userId: string, body: { role: ProjectRole; environments?: EnvironmentGrants }) =>
    request<unknown>('PUT', `/project/members/${enc(userId)}`, { body }),
  removeMember: (userId: string) => request<unknown>('DELETE', `/project/members/${enc(userId)}`),

  invitations: async () => (await request<{ invitations: Invitation[] }>('GET', '/invitations')).invitations,
  invite: (body: {
    email: string
    instance_role?: InstanceRole
    projects?: { project: string; role: ProjectRole; environments?: EnvironmentGrants }[]
  }) => request<{ id: string; token: string; url: string; expires_at: string }>('POST', '/invitations', { body }),
  revokeInvitation: (id: string) => request<unknown>('DELETE', `/invitations/${enc(id)}`),

  users: async () => (await request<{ users: User[] }>('GET', '/admin/users', noProject)).users,
  instanceAudit: (f: InstanceAuditFilter) =>
    request<{ entries: InstanceAuditEntry[]; total: number; has_more: boolean }>('GET', '/admin/audit', { query: { ...f }, ...noProject }),
  patchUser: (id: string, body: { instance_role?: InstanceRole; disabled?: boolean }) =>
    request<unknown>('PATCH', `/admin/users/${enc(id)}`, { body, ...noProject }),
  deleteUser: (id: string) => request<unknown>('DELETE', `/admin/users/${enc(id)}`, noProject),
  resetPassword: (id: string) => request<{ url: string; expires_at: string }>('POST', `/admin/users/${enc(id)}/password-reset`, noProject),

  projects: async () => (await request<{ projects: ProjectSummary[] }>('GET', '/projects', noProject)).projects,
  createProject: (body: { name: string; slug: string; environments?: string[] }) =>
    request<unknown>('POST', '/projects', { body, ...noProject }),
  deleteProject: (id: string, slug: string) =>
    request<unknown>('DELETE', `/projects/${enc(id)}`, { query: { confirm: slug }, ...noProject }),
}
