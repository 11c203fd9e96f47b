// /api/v1/me: the caller itself. A token sees its own name, project and permissions (as before, plus
// `kind`); a signed-in person sees themselves, their projects, and manages their password and sessions.
import { t } from 'elysia'
import type { AppDeps } from '../deps'
import { callerOf, type Caller } from '../auth'
import { userView } from '../../identity/service'
import type { Person } from '../../identity/directory'
import { AppError } from '../../errors'
import { permissionsOfRole } from '../../store/vocabulary/roles'
import { tokenView } from '../../services/tokens'
import * as S from '../../schemas'
import { guard, jsonBody, routeModule } from './common'

const DAY = 86_400_000
const PersonalTokenCreate = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: 200 }),
    project: t.String({ maxLength: 64, description: 'project id or slug' }),
    permissions: t.Array(S.Permission, { minItems: 1 }),
    environments: t.Optional(t.Array(t.String({ maxLength: 64 }), { maxItems: 100 })),
    environment: t.Optional(t.String({ maxLength: 64, description: 'an environment key: evaluations run in this environment only' })),
    expires_at: t.Optional(S.Timestamp),
  },
  { title: 'PersonalTokenCreate' },
)

/** Whether a role's rights cover `permissions` (nobody grants more than they have). */
const within = (own: readonly string[], wanted: readonly string[]) =>
  own.includes('*') || wanted.every((p) => p !== '*' && own.includes(p === 'client' ? 'read:flags' : p))

export const meRoutes = ({
  identity,
  access,
  snapshots,
  services,
  store,
}: Pick<AppDeps, 'identity' | 'access' | 'snapshots' | 'services' | 'store'>) => {
  /** The signed-in person of a session request (routes guarded with `session`). */
  function personOf(caller: Caller): { person: Person; sessionId: string } {
    const person = caller.person?.sessionId !== undefined ? identity.directory.get(caller.person.userId) : undefined
    if (!person) throw new AppError(401, 'UNAUTHORIZED', 'Not signed in')
    return { person, sessionId: caller.person!.sessionId! }
  }

  function projectsOf(person: Person) {
    return snapshots.allProjects().flatMap((p) => {
      const grant = access.grantOf(person, p.id)
      return grant ? [{ id: p.id, slug: p.slug, name: p.name, role: grant.role, environments: grant.environments }] : []
    })
  }

  return routeModule('me')
    .get(
      '/api/v1/me',
      ({ request }) => {
        const caller = callerOf(request)
        if (caller.person?.sessionId !== undefined) {
          const { person } = personOf(caller)
          const projects = projectsOf(person)
          const ref = request.headers.get('flagship-project')
          const project = ref === null ? undefined : projects.find((p) => p.id === ref || p.slug === ref)
          if (ref !== null && !project) throw new AppError(404, 'PROJECT_NOT_FOUND', 'Project not found')
          return {
            kind: 'user' as const,
            user: userView(person.user),
            projects,
            ...(project && { project, permissions: permissionsOfRole(project.role) }),
          }
        }
        const { token } = caller
        const owner = token.ownerUserId !== null ? identity.directory.get(token.ownerUserId)?.user.email : undefined
        return {
          kind: 'token' as const,
          name: token.name,
          token_prefix: token.tokenPrefix,
          project_id: token.projectId,
          permissions: token.permissions,
          expires_at: token.expiresAt,
          environments: token.environments,
          ...(token.environment !== null && { environment: token.environment }),
          ...(owner !== undefined && { owner }),
        }
      },
      {
        ...guard('self', 'me', 'The caller: a token (name, project, permissions) or a signed-in person (user, projects)'),
        response: { 200: t.Union([S.MeToken, S.MeUser]), ...S.errors(401, 404, 429) },
      },
    )
    .put(
      '/api/v1/me/password',
      async ({ request, body }) => {
        const { person, sessionId } = personOf(callerOf(request))
        await identity.changePassword(person, sessionId, body, request)
        return { success: true as const }
      },
      {
        ...guard('session', 'me', 'Change your password (ends your other sessions)'),
        ...jsonBody(S.PasswordChange),
        response: { 200: t.Object({ success: S.Success }), ...S.errors(400, 401, 403, 413, 415, 429) },
      },
    )
    .get(
      '/api/v1/me/tokens',
      async ({ request }) => {
        const { person } = personOf(callerOf(request))
        return { tokens: (await store.tokens.byOwner(store.db, person.user.id)).map(tokenView) }
      },
      {
        ...guard('session', 'me', 'Your personal access tokens (never plaintext)'),
        response: { 200: t.Object({ tokens: t.Array(S.TokenEntry) }), ...S.errors(401, 403, 429) },
      },
    )
    .post(
      '/api/v1/me/tokens',
      async ({ request, body, set }) => {
        const { person } = personOf(callerOf(request))
        const project = snapshots.projectByRef(body.project)?.project
        const grant = project && access.grantOf(person, project.id)
        if (!project || !grant) throw new AppError(404, 'PROJECT_NOT_FOUND', 'Project not found')
        const own = permissionsOfRole(grant.role)
        if (!within(own, body.permissions))
          throw new AppError(403, 'FORBIDDEN', `As ${grant.role} you cannot grant ${body.permissions.join(', ')}`, {
            required: body.permissions.find((p) => !within(own, [p])),
          })
        const now = Date.now()
        const expiresAt = body.expires_at ?? new Date(now + 90 * DAY).toISOString()
        if (!(Date.parse(expiresAt) <= now + 366 * DAY))
          throw new AppError(400, 'VALIDATION_ERROR', 'A personal token lasts at most one year', {
            issues: [{ path: 'expires_at', message: 'at most one year ahead' }],
          })
        const { token, row } = await services.tokens.create(
          { projectId: project.id, name: person.user.email },
          {
            name: body.name,
            project_id: project.id,
            permissions: body.permissions,
            expires_at: expiresAt,
            environments: body.environments ?? null,
            environment: body.environment ?? null,
            owner_user_id: person.user.id,
            created_by_user_id: person.user.id,
          },
        )
        set.status = 201
        return { token, meta: tokenView(row) }
      },
      {
        ...guard(
          'session',
          'me',
          'Create a personal access token (default expiry 90 days, at most one year); shown once. ' +
            'It never does more than you can at the time.',
        ),
        ...jsonBody(PersonalTokenCreate),
        response: { 201: t.Object({ token: t.String(), meta: S.TokenEntry }), ...S.errors(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    )
    .delete(
      '/api/v1/me/tokens/:hash',
      async ({ request, params }) => {
        const { person } = personOf(callerOf(request))
        const row = (await store.tokens.byOwner(store.db, person.user.id)).find((t) => t.hash === params.hash)
        if (!row) throw new AppError(404, 'NOT_FOUND', 'Token not found')
        await services.tokens.delete({ projectId: row.projectId, name: person.user.email }, row.hash)
        return { success: true as const, hash: params.hash }
      },
      {
        ...guard('session', 'me', 'Revoke one of your personal tokens'),
        params: t.Object({ hash: t.String({ maxLength: 64 }) }),
        response: { 200: t.Object({ success: S.Success, hash: t.String() }), ...S.errors(401, 403, 404, 429) },
      },
    )
    .get(
      '/api/v1/me/sessions',
      async ({ request }) => {
        const { person, sessionId } = personOf(callerOf(request))
        return { sessions: await identity.listSessions(person.user.id, sessionId) }
      },
      {
        ...guard('session', 'me', 'Your sessions'),
        response: { 200: t.Object({ sessions: t.Array(S.Session) }), ...S.errors(401, 403, 429) },
      },
    )
    .delete(
      '/api/v1/me/sessions/:id',
      async ({ request, params }) => {
        const { person } = personOf(callerOf(request))
        await identity.revokeSession(person, params.id, request)
        return { success: true as const, id: params.id }
      },
      {
        ...guard('session', 'me', 'End one of your sessions'),
        params: t.Object({ id: t.String({ maxLength: 64 }) }),
        response: { 200: t.Object({ success: S.Success, id: t.String() }), ...S.errors(401, 403, 404, 429) },
      },
    )
}
