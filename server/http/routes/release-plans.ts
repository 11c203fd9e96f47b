// /api/v1/flags/:key/release-plans (docs/experiments.md §7): create, list, one, and start,
// pause, resume, rollback. Reads need read:flags; writes write:flags plus write rights in the plan's
// environment, checked by the one authorization function once the plan (and so its environment) is known.
import { t } from 'elysia'
import { releasePlanView } from '../../services/release-plans'
import type { AppDeps } from '../deps'
import { callerOf } from '../auth'
import { authorizeRoute } from '../request-access'
import * as S from '../../schemas'
import { guard, jsonBody, routeModule } from './common'

const PlanParams = t.Object({ key: t.String(), id: t.String() })
const PlanAnswer = t.Object({ success: S.Success, release_plan: S.ReleasePlan })
const environmentOfBody = (body: unknown): string[] | 'all' => {
  const env = (body as { environment?: unknown } | null)?.environment
  return typeof env === 'string' ? [env] : 'all'
}

export const releasePlanRoutes = ({ services }: Pick<AppDeps, 'services'>) => {
  /** Write rights in the plan's environment (the route's guard checked the permission itself). */
  async function mayChange(request: Request, key: string, id: string) {
    const row = await services.releasePlans.mustGet(callerOf(request).actor.projectId, key, id)
    authorizeRoute(request, 'write:flags', [row.environment])
    return row
  }
  const requester = (request: Request) => {
    const caller = callerOf(request)
    return { actor: caller.actor, userId: caller.person?.userId ?? null }
  }
  const transition = (name: 'pause' | 'resume' | 'rollback', summary: string) =>
    [
      `/api/v1/flags/:key/release-plans/:id/${name}`,
      async ({ request, params }: { request: Request; params: { key: string; id: string } }) => {
        await mayChange(request, params.key, params.id)
        return {
          success: true as const,
          release_plan: releasePlanView(await services.releasePlans[name](callerOf(request).actor, params.key, params.id)),
        }
      },
      {
        ...guard('write:flags', 'flags', summary, () => []),
        params: PlanParams,
        response: { 200: PlanAnswer, ...S.errors(401, 403, 404, 409, 429) },
      },
    ] as const
  return routeModule('release-plans')
    .get(
      '/api/v1/flags/:key/release-plans',
      async ({ request, params }) => {
        const rows = await services.releasePlans.list(callerOf(request).actor.projectId, params.key)
        return { release_plans: rows.map(releasePlanView) }
      },
      {
        ...guard('read:flags', 'flags', "A flag's release plans, newest first (at most 100)"),
        params: S.KeyParam,
        response: { 200: t.Object({ release_plans: t.Array(S.ReleasePlan) }), ...S.errors(401, 403, 404, 429) },
      },
    )
    .post(
      '/api/v1/flags/:key/release-plans',
      async ({ request, params, body, set }) => {
        const row = await services.releasePlans.create(callerOf(request).actor, params.key, body)
        set.status = 201
        return { success: true as const, release_plan: releasePlanView(row) }
      },
      {
        ...guard(
          'write:flags',
          'flags',
          "Create a release plan (draft): the flag's rollout in one environment raised step by step while guardrail metrics are watched",
          ({ body }) => environmentOfBody(body),
        ),
        params: S.KeyParam,
        ...jsonBody(S.ReleasePlanCreate),
        response: { 201: PlanAnswer, ...S.errors(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    )
    .get(
      '/api/v1/flags/:key/release-plans/:id',
      async ({ request, params }) => ({
        release_plan: releasePlanView(await services.releasePlans.mustGet(callerOf(request).actor.projectId, params.key, params.id)),
      }),
      {
        ...guard('read:flags', 'flags', "One release plan: its steps, where it is, each guardrail's latest interval"),
        params: PlanParams,
        response: { 200: t.Object({ release_plan: S.ReleasePlan }), ...S.errors(401, 403, 404, 429) },
      },
    )
    .post(
      '/api/v1/flags/:key/release-plans/:id/start',
      async ({ request, params, set }) => {
        await mayChange(request, params.key, params.id)
        const { plan, changeRequest } = await services.releasePlans.start(requester(request), params.key, params.id)
        if (!changeRequest) return { success: true as const, release_plan: releasePlanView(plan) }
        set.status = 202
        return {
          success: true as const,
          release_plan: releasePlanView(plan),
          change_request: { id: changeRequest.id, state: changeRequest.state, title: changeRequest.title },
        }
      },
      {
        ...guard(
          'write:flags',
          'flags',
          'Start a release plan: step 1 is written ' +
            '(a protected environment: 202 with the change request whose approval covers the later steps and the rollback)',
          () => [],
        ),
        params: PlanParams,
        response: {
          200: PlanAnswer,
          202: t.Object({
            success: S.Success,
            release_plan: S.ReleasePlan,
            change_request: t.Object(
              { id: t.String(), state: t.String(), title: t.String() },
              { description: 'the plan runs once it is applied' },
            ),
          }),
          ...S.errors(401, 403, 404, 409, 429),
        },
      },
    )
    .post(...transition('pause', 'Pause a running release plan (its step is held)'))
    .post(...transition('resume', 'Resume a paused release plan (its step is held again from now, measured afresh)'))
    .post(...transition('rollback', 'Roll a release plan back: the rollout goes to 0 % (an emergency off in a protected environment)'))
}
