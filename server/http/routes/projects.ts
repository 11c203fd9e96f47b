// Several projects and their members (teams.md §6): /projects for everyone who can see some, creating
// (instance admins) and deleting (owners, with ?confirm=<slug>); /project/members and /project/access for
// the project the request acts on (project admins).
import { t } from 'elysia'
import type { AppDeps } from '../deps'
import { callerOf, type Caller } from '../auth'
import { AppError } from '../../errors'
import { projectView } from '../../services/project'
import { memberOperations } from '../../identity/members'
import { clientAddress } from '../../identity/request-meta'
import * as S from '../../schemas'
import { guard, jsonBody, routeModule } from './common'

const ProjectEntry = t.Object(
  { id: t.String(), slug: t.String(), name: t.String(), environments: t.Array(t.String()), role: t.Optional(S.ProjectRole) },
  { title: 'ProjectEntry' },
)
const Member = t.Object({ user: S.User, role: S.ProjectRole, environments: S.EnvironmentGrants, via: t.String() }, { title: 'Member' })

export const projectsRoutes = ({
  identity,
  access,
  store,
  snapshots,
  services,
}: Pick<AppDeps, 'identity' | 'access' | 'store' | 'snapshots' | 'services'>) => {
  const members = memberOperations(store, identity, access)
  const actorOf = (caller: Caller) => ({
    name: caller.actor.name,
    actorType: caller.person ? 'user' : 'token',
    credential: caller.person ? (caller.person.sessionId !== undefined ? 'session' : caller.token.tokenPrefix) : null,
  })
  const emailOf = (caller: Caller) =>
    caller.person ? (identity.directory.get(caller.person.userId)?.user.email ?? caller.actor.name) : caller.actor.name

  return routeModule('projects')
    .get(
      '/api/v1/projects',
      ({ request }) => {
        const caller = callerOf(request)
        const person = caller.person?.sessionId !== undefined ? identity.directory.get(caller.person.userId) : undefined
        const projects = snapshots.allProjects().flatMap((p) => {
          if (!person)
            return p.id === caller.token.projectId ? [{ id: p.id, slug: p.slug, name: p.name, environments: p.environments }] : []
          const grant = access.grantOf(person, p.id)
          return grant ? [{ id: p.id, slug: p.slug, name: p.name, environments: p.environments, role: grant.role }] : []
        })
        return { projects: projects.sort((a, b) => a.slug.localeCompare(b.slug)) }
      },
      {
        ...guard('self', 'projects', 'The projects the caller can see (a token: its own)'),
        response: { 200: t.Object({ projects: t.Array(ProjectEntry) }), ...S.errors(401, 429) },
      },
    )
    .post(
      '/api/v1/projects',
      async ({ request, body, set }) => {
        const caller = callerOf(request)
        const email = emailOf(caller)
        const project = await services.project.create(email, body, (tx, p) =>
          identity.audit(tx, {
            actor: email,
            actorType: 'user',
            action: 'create',
            resourceType: 'project',
            resourceKey: p.id,
            details: { slug: p.slug, name: p.name },
            ip: clientAddress(request),
          }),
        )
        set.status = 201
        return projectView(project)
      },
      {
        ...guard('instance:admin', 'projects', 'Create a project'),
        ...jsonBody(
          t.Object({
            name: t.String({ maxLength: 200 }),
            slug: t.String({ maxLength: 64 }),
            environments: t.Optional(t.Array(t.String({ maxLength: 64 }), { maxItems: 50 })),
          }),
        ),
        response: { 201: S.Project, ...S.errors(400, 401, 403, 409, 413, 415, 429) },
      },
    )
    .delete(
      '/api/v1/projects/:id',
      async ({ request, params, query }) => {
        const email = emailOf(callerOf(request))
        await services.project.delete(email, params.id, query.confirm, (tx, p) =>
          identity.audit(tx, {
            actor: email,
            actorType: 'user',
            action: 'delete',
            resourceType: 'project',
            resourceKey: p.id,
            details: { slug: p.slug, name: p.name },
            ip: clientAddress(request),
          }),
        )
        return { success: true as const, id: params.id }
      },
      {
        ...guard('instance:owner', 'projects', 'Delete a project and everything in it (?confirm={its slug})'),
        params: t.Object({ id: t.String({ maxLength: 64 }) }),
        query: t.Object({ confirm: t.Optional(t.String({ maxLength: 64 })) }),
        response: { 200: t.Object({ success: S.Success, id: t.String() }), ...S.errors(400, 401, 403, 404, 429) },
      },
    )
    .get('/api/v1/project/members', async ({ request }) => ({ members: await members.list(callerOf(request).actor.projectId) }), {
      ...guard('*', 'projects', "The project's members"),
      response: { 200: t.Object({ members: t.Array(Member) }), ...S.errors(400, 401, 403, 404, 429) },
    })
    .put(
      '/api/v1/project/members/:user_id',
      async ({ request, params, body }) => {
        const caller = callerOf(request)
        return members.put(actorOf(caller), caller.actor.projectId, params.user_id, body)
      },
      {
        ...guard('*', 'projects', "Set a user's role in the project, with per-environment overrides"),
        params: t.Object({ user_id: t.String({ maxLength: 64 }) }),
        ...jsonBody(t.Object({ role: S.ProjectRole, environments: t.Optional(S.EnvironmentGrants) })),
        response: { 200: Member, ...S.errors(400, 401, 403, 404, 413, 415, 429) },
      },
    )
    .delete(
      '/api/v1/project/members/:user_id',
      async ({ request, params }) => {
        const caller = callerOf(request)
        await members.delete(actorOf(caller), caller.actor.projectId, params.user_id)
        return { success: true as const, user_id: params.user_id }
      },
      {
        ...guard('*', 'projects', 'Remove a user from the project'),
        params: t.Object({ user_id: t.String({ maxLength: 64 }) }),
        response: { 200: t.Object({ success: S.Success, user_id: t.String() }), ...S.errors(400, 401, 403, 404, 429) },
      },
    )
    .get(
      '/api/v1/project/access',
      async ({ request, query }) => {
        if (!query.environment)
          throw new AppError(400, 'VALIDATION_ERROR', 'Name the environment: ?environment=', {
            issues: [{ path: 'environment', message: 'required' }],
          })
        return members.access(callerOf(request).actor.projectId, query.environment)
      },
      {
        ...guard('*', 'projects', 'Who can change an environment, and how (people and tokens)'),
        query: t.Object({ environment: t.Optional(t.String({ maxLength: 64 })) }),
        response: {
          200: t.Object({
            environment: t.String(),
            users: t.Array(t.Object({ user: S.User, role: S.ProjectRole, via: t.String() })),
            tokens: t.Array(
              t.Object({
                name: t.String(),
                token_prefix: t.String(),
                permissions: t.Array(S.Permission),
                environments: t.Nullable(t.Array(t.String())),
                owner: t.Optional(t.String()),
              }),
            ),
          }),
          ...S.errors(400, 401, 403, 404, 429),
        },
      },
    )
}
