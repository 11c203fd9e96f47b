// /api/v1/project: the caller's project and its environments (/api/v1/me is in me.ts).
import { t } from 'elysia'
import { projectView } from '../../services/project'
import type { AppDeps } from '../deps'
import { callerOf } from '../auth'
import * as S from '../../schemas'
import { guard, jsonBody, routeModule } from './common'

const Environments = t.Object({ environments: t.Array(t.String()) })
const EnvironmentsChanged = t.Object({ success: S.Success, environments: t.Array(t.String()) })

export const projectRoutes = ({ services }: Pick<AppDeps, 'services'>) =>
  routeModule('project')
    .get('/api/v1/project', async ({ request }) => projectView(await services.project.get(callerOf(request).actor.projectId)), {
      ...guard('any', 'project', "The caller's project"),
      response: { 200: S.Project, ...S.errors(401, 429) },
    })
    .put('/api/v1/project', async ({ request, body }) => projectView(await services.project.update(callerOf(request).actor, body)), {
      ...guard('*', 'project', 'Rename the project or change its slug'),
      ...jsonBody(S.ProjectPatch),
      response: { 200: S.Project, ...S.errors(400, 401, 403, 409, 413, 415, 429) },
    })
    .get(
      '/api/v1/project/environments',
      async ({ request }) => ({ environments: (await services.project.get(callerOf(request).actor.projectId)).environments }),
      {
        ...guard('any', 'project', "The project's environments"),
        response: { 200: Environments, ...S.errors(401, 429) },
      },
    )
    .post(
      '/api/v1/project/environments',
      async ({ request, body, set }) => {
        const p = await services.project.addEnvironment(callerOf(request).actor, body.name)
        set.status = 201
        return { success: true as const, environments: p.environments }
      },
      {
        ...guard('*', 'project', 'Add an environment'),
        ...jsonBody(t.Object({ name: t.String() })),
        response: { 201: EnvironmentsChanged, ...S.errors(400, 401, 403, 409, 413, 415, 429) },
      },
    )
    .delete(
      '/api/v1/project/environments/:name',
      async ({ request, params, query }) => {
        const p = await services.project.removeEnvironment(callerOf(request).actor, params.name, query.force === true)
        return { success: true as const, environments: p.environments }
      },
      {
        ...guard('*', 'project', 'Remove an environment (409 IN_USE while overrides use it, unless ?force=true)'),
        params: t.Object({ name: t.String() }),
        query: S.Force,
        response: { 200: EnvironmentsChanged, ...S.errors(401, 403, 404, 409, 429) },
      },
    )
