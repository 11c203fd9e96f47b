// People, for instance admins and project admins (teams.md §6): /admin/users, invitations and accepting
// them, password-reset links. Session routes: the acting person is the caller's.
import { t } from 'elysia'
import type { AppDeps } from '../deps'
import { callerOf } from '../auth'
import { AppError, validationError } from '../../errors'
import { isIsoDate } from '../../engine'
import { userView } from '../../identity/service'
import { userAdministration } from '../../identity/admin'
import { invitationOperations } from '../../identity/invitations'
import { clientAddress } from '../../identity/request-meta'
import type { Person } from '../../identity/directory'
import * as S from '../../schemas'
import { guard, jsonBody, routeModule } from './common'

const Invitation = t.Object(
  {
    id: t.String(),
    email: t.String(),
    instance_role: S.InstanceRole,
    projects: t.Array(t.Object({ project: t.String(), role: S.ProjectRole, environments: S.EnvironmentGrants })),
    created_by: t.String(),
    created_at: S.Timestamp,
    expires_at: S.Timestamp,
    accepted_at: t.Nullable(S.Timestamp),
  },
  { title: 'Invitation' },
)

const InvitationPreview = t.Object(
  {
    email: t.String(),
    instance_role: S.InstanceRole,
    projects: t.Array(
      t.Object({ id: t.String(), slug: t.String(), name: t.String(), role: S.ProjectRole, environments: S.EnvironmentGrants }),
    ),
    expires_at: S.Timestamp,
  },
  { title: 'InvitationPreview' },
)

export const peopleRoutes = ({ identity, access, store, settings }: Pick<AppDeps, 'identity' | 'access' | 'store' | 'settings'>) => {
  const admin = userAdministration(store, identity)
  const invitations = invitationOperations(store, identity, access)
  const originOf = (request: Request) => settings.publicUrl ?? new URL(request.url).origin

  function actingPerson(request: Request): { person: Person; ip: string | null } {
    const caller = callerOf(request)
    const person = caller.person?.sessionId !== undefined ? identity.directory.get(caller.person.userId) : undefined
    if (!person) throw new AppError(401, 'UNAUTHORIZED', 'Not signed in')
    return { person, ip: clientAddress(request) }
  }

  return routeModule('people')
    .get(
      '/api/v1/admin/users',
      () => ({ users: [...identity.directory.all()].map((p) => userView(p.user)).sort((a, b) => a.email.localeCompare(b.email)) }),
      {
        ...guard('instance:admin', 'people', 'Every user of this service'),
        response: { 200: t.Object({ users: t.Array(S.User) }), ...S.errors(401, 403, 429) },
      },
    )
    .get(
      '/api/v1/admin/audit',
      async ({ query }) => {
        const limit = query.limit ?? 100
        const offset = query.offset ?? 0
        // A date that does not exist (February 30th) is refused, not rolled over (as GET /api/v1/audit does).
        const bad = (['since', 'until'] as const).filter((f) => query[f] !== undefined && !isIsoDate(query[f]))
        if (bad.length) throw validationError(bad.map((f) => ({ path: f, message: 'must be an ISO 8601 date-time that exists' })))
        const toIso = (v?: string) => (v ? new Date(v).toISOString() : undefined)
        const { rows, total } = await store.instanceAudit.page(
          store.db,
          {
            actor: query.actor?.toLowerCase(),
            action: query.action,
            resourceType: query.resource_type,
            since: toIso(query.since),
            until: toIso(query.until),
          },
          limit,
          offset,
        )
        return {
          entries: rows.map((r) => ({
            id: r.id,
            timestamp: r.timestamp,
            actor: r.actor,
            actor_type: r.actorType,
            action: r.action,
            resource_type: r.resourceType,
            resource_key: r.resourceKey,
            details: r.details,
            ip: r.ip,
          })),
          total,
          has_more: offset + rows.length < total,
        }
      },
      {
        ...guard(
          'instance:admin',
          'people',
          'The instance audit log: sign-ins, failures, sign-outs, users, invitations, projects (newest first)',
        ),
        query: t.Object({
          actor: t.Optional(t.String({ maxLength: 254, description: "the person's email (or the actor as entries record it)" })),
          action: t.Optional(
            t.String({ maxLength: 64, description: 'sign_in, sign_in_failed, sign_out, setup, create, update, delete, …' }),
          ),
          resource_type: t.Optional(
            t.String({ maxLength: 64, description: 'what the entry is about: session, user, invitation, project, …' }),
          ),
          since: t.Optional(t.String({ format: 'date-time', description: 'ISO 8601: entries at or after' })),
          until: t.Optional(t.String({ format: 'date-time', description: 'ISO 8601: entries before' })),
          ...S.Page.properties,
        }),
        response: {
          200: t.Object({
            entries: t.Array(
              t.Object({
                id: t.Integer(),
                timestamp: S.Timestamp,
                actor: t.String(),
                actor_type: t.String(),
                action: t.String(),
                resource_type: t.String(),
                resource_key: t.String(),
                details: S.Json,
                ip: t.Nullable(t.String()),
              }),
            ),
            total: t.Integer(),
            has_more: t.Boolean(),
          }),
          ...S.errors(400, 401, 403, 429),
        },
      },
    )
    .patch(
      '/api/v1/admin/users/:id',
      async ({ request, params, body }) => userView(await admin.update(actingPerson(request), params.id, body)),
      {
        ...guard('instance:admin', 'people', "Change a user's instance role or disable them (409 LAST_OWNER for the last active owner)"),
        params: t.Object({ id: t.String({ maxLength: 64 }) }),
        ...jsonBody(t.Object({ instance_role: t.Optional(S.InstanceRole), disabled: t.Optional(t.Boolean()) })),
        response: { 200: S.User, ...S.errors(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    )
    .delete(
      '/api/v1/admin/users/:id',
      async ({ request, params }) => {
        await admin.delete(actingPerson(request), params.id)
        return { success: true as const, id: params.id }
      },
      {
        ...guard('instance:admin', 'people', 'Delete a user, their sessions and personal tokens (409 LAST_OWNER)'),
        params: t.Object({ id: t.String({ maxLength: 64 }) }),
        response: { 200: t.Object({ success: S.Success, id: t.String() }), ...S.errors(401, 403, 404, 409, 429) },
      },
    )
    .post(
      '/api/v1/admin/users/:id/password-reset',
      async ({ request, params, set }) => {
        set.status = 201
        return admin.passwordReset(actingPerson(request), params.id, originOf(request))
      },
      {
        ...guard('instance:admin', 'people', 'A one-time link (24 h) with which the user sets a new password; shown once'),
        params: t.Object({ id: t.String({ maxLength: 64 }) }),
        response: { 201: t.Object({ url: t.String(), expires_at: S.Timestamp }), ...S.errors(401, 403, 404, 429) },
      },
    )
    .post(
      '/api/v1/auth/password-reset',
      async ({ request, body }) => {
        await identity.throttle.checkAddress(clientAddress(request))
        await admin.usePasswordReset(body.token, body.password, clientAddress(request))
        return { success: true as const }
      },
      {
        ...guard('public', 'auth', 'Set a new password with a reset link (ends every session of the user); 410 when used or expired'),
        ...jsonBody(t.Object({ token: t.String({ maxLength: 128 }), password: t.String({ maxLength: 1024 }) })),
        response: { 200: t.Object({ success: S.Success }), ...S.errors(400, 403, 410, 413, 415, 429) },
      },
    )
    .post(
      '/api/v1/invitations',
      async ({ request, body, set }) => {
        const { person, ip } = actingPerson(request)
        set.status = 201
        return invitations.create(person, body, originOf(request), ip)
      },
      {
        ...guard(
          'session',
          'people',
          'Invite someone (instance admins anywhere, project admins to their projects); the token is shown once',
        ),
        ...jsonBody(
          t.Object({
            email: t.String({ maxLength: 254 }),
            instance_role: t.Optional(S.InstanceRole),
            projects: t.Optional(
              t.Array(
                t.Object({ project: t.String({ maxLength: 64 }), role: S.ProjectRole, environments: t.Optional(S.EnvironmentGrants) }),
                { maxItems: 100 },
              ),
            ),
          }),
        ),
        response: {
          201: t.Object({ id: t.String(), token: t.String(), url: t.String(), expires_at: S.Timestamp }),
          ...S.errors(400, 401, 403, 404, 409, 413, 415, 429),
        },
      },
    )
    .get('/api/v1/invitations', async ({ request }) => ({ invitations: await invitations.list(actingPerson(request).person) }), {
      ...guard('session', 'people', 'Invitations (instance admins: all; others: their own)'),
      response: { 200: t.Object({ invitations: t.Array(Invitation) }), ...S.errors(401, 403, 429) },
    })
    .delete(
      '/api/v1/invitations/:id',
      async ({ request, params }) => {
        const { person, ip } = actingPerson(request)
        await invitations.delete(person, params.id, ip)
        return { success: true as const, id: params.id }
      },
      {
        ...guard('session', 'people', 'Withdraw an invitation'),
        params: t.Object({ id: t.String({ maxLength: 64 }) }),
        response: { 200: t.Object({ success: S.Success, id: t.String() }), ...S.errors(401, 403, 404, 429) },
      },
    )
    .post('/api/v1/auth/invitations/lookup', async ({ request, body }) => invitations.preview(body.token, request), {
      ...guard(
        'public',
        'auth',
        'What an open invitation is for (email, instance role, projects and roles), for its accept page; ' +
          '410 INVITATION_GONE when used, withdrawn, expired or unknown',
      ),
      ...jsonBody(t.Object({ token: t.String({ maxLength: 128 }) })),
      response: { 200: InvitationPreview, ...S.errors(400, 403, 410, 413, 415, 429) },
    })
    .post(
      '/api/v1/auth/invitations/accept',
      async ({ request, body, set }) => {
        const { user, cookie } = await invitations.accept(body, request)
        set.status = 201
        set.headers['set-cookie'] = cookie
        return { user: userView(user) }
      },
      {
        ...guard('public', 'auth', 'Accept an invitation with a name and password; signs in (410 INVITATION_GONE when used or expired)'),
        ...jsonBody(
          t.Object({ token: t.String({ maxLength: 128 }), name: t.String({ maxLength: 200 }), password: t.String({ maxLength: 1024 }) }),
        ),
        response: { 201: S.SignedIn, ...S.errors(400, 403, 410, 413, 415, 429) },
      },
    )
}
