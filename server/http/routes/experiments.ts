// /api/v1/experiments (docs/experiments.md §2-3): CRUD, start and stop, and the results (JSON and CSV).
// Reads need read:flags; writes write:flags plus write rights in the experiment's environment, checked by
// the one authorization function once the experiment (and so its environment) is known.
import { t } from 'elysia'
import { experimentView } from '../../services/experiments'
import type { AppDeps } from '../deps'
import { callerOf } from '../auth'
import { authorizeRoute } from '../request-access'
import * as S from '../../schemas'
import { guard, jsonBody, listBody, paging, routeModule } from './common'
import { validationError } from '../../errors'

const ExperimentAnswer = t.Object({ success: S.Success, experiment: S.Experiment })
const environmentOfBody = (body: unknown): string[] | 'all' => {
  const env = (body as { environment?: unknown } | null)?.environment
  return typeof env === 'string' ? [env] : 'all'
}

export const experimentRoutes = ({ services }: Pick<AppDeps, 'services'>) => {
  /** Write rights in the experiment's environment (the route's guard checked the permission itself). */
  async function mayChange(request: Request, key: string) {
    const row = await services.experiments.mustGet(callerOf(request).actor.projectId, key)
    authorizeRoute(request, 'write:flags', [row.environment])
    return row
  }
  const requester = (request: Request) => {
    const caller = callerOf(request)
    return { actor: caller.actor, userId: caller.person?.userId ?? null }
  }
  return routeModule('experiments')
    .get(
      '/api/v1/experiments',
      async ({ request, query }) => {
        const { limit, offset } = paging(query)
        if (query.state !== undefined && !['draft', 'running', 'stopped'].includes(query.state))
          throw validationError([{ path: 'state', message: 'must be draft, running or stopped' }])
        const { rows, total } = await services.experiments.list(callerOf(request).actor.projectId, limit, offset, query.state)
        return listBody('experiments', rows.map(experimentView), total, offset)
      },
      {
        ...guard('read:flags', 'experiments', 'List experiments'),
        query: t.Object({ ...S.Page.properties, state: t.Optional(t.String({ description: 'draft, running or stopped' })) }),
        response: {
          200: t.Object({ experiments: t.Array(S.Experiment), total: t.Integer(), has_more: t.Boolean() }),
          ...S.errors(400, 401, 403, 429),
        },
      },
    )
    .post(
      '/api/v1/experiments',
      async ({ request, body, set }) => {
        const row = await services.experiments.create(callerOf(request).actor, body)
        set.status = 201
        return { success: true as const, experiment: experimentView(row) }
      },
      {
        ...guard('write:flags', 'experiments', 'Create an experiment (draft) on a flag with a split in one environment', ({ body }) =>
          environmentOfBody(body),
        ),
        ...jsonBody(S.ExperimentCreate),
        response: { 201: ExperimentAnswer, ...S.errors(400, 401, 403, 409, 413, 415, 429) },
      },
    )
    .get(
      '/api/v1/experiments/:key',
      async ({ request, params }) => ({
        experiment: experimentView(await services.experiments.mustGet(callerOf(request).actor.projectId, params.key)),
      }),
      {
        ...guard('read:flags', 'experiments', 'One experiment'),
        params: S.KeyParam,
        response: { 200: t.Object({ experiment: S.Experiment }), ...S.errors(401, 403, 404, 429) },
      },
    )
    .put(
      '/api/v1/experiments/:key',
      async ({ request, params, body }) => {
        await mayChange(request, params.key)
        return {
          success: true as const,
          experiment: experimentView(await services.experiments.update(callerOf(request).actor, params.key, body)),
        }
      },
      {
        ...guard('write:flags', 'experiments', 'Change an experiment (while draft; later only name, hypothesis and metrics)', () => []),
        params: S.KeyParam,
        ...jsonBody(S.ExperimentPatch),
        response: { 200: ExperimentAnswer, ...S.errors(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    )
    .delete(
      '/api/v1/experiments/:key',
      async ({ request, params }) => {
        await mayChange(request, params.key)
        await services.experiments.delete(callerOf(request).actor, params.key)
        return { success: true as const, key: params.key }
      },
      {
        ...guard('write:flags', 'experiments', 'Delete a draft experiment', () => []),
        params: S.KeyParam,
        response: { 200: S.Deleted, ...S.errors(401, 403, 404, 409, 429) },
      },
    )
    .post(
      '/api/v1/experiments/:key/start',
      async ({ request, params }) => {
        await mayChange(request, params.key)
        return { success: true as const, experiment: experimentView(await services.experiments.start(callerOf(request).actor, params.key)) }
      },
      {
        ...guard(
          'write:flags',
          'experiments',
          'Start an experiment: phase 1 opens (409 EXPERIMENT_RUNNING when another runs on the flag and environment)',
          () => [],
        ),
        params: S.KeyParam,
        response: { 200: ExperimentAnswer, ...S.errors(400, 401, 403, 404, 409, 429) },
      },
    )
    .post(
      '/api/v1/experiments/:key/stop',
      async ({ request, params, body, set }) => {
        await mayChange(request, params.key)
        const outcome = await services.experimentStops.stop(requester(request), params.key, body)
        if ('stopped' in outcome) return { success: true as const, experiment: experimentView(outcome.stopped) }
        set.status = 202
        return {
          success: true as const,
          experiment: experimentView(outcome.experiment),
          change_request: { id: outcome.changeRequest.id, state: outcome.changeRequest.state, title: outcome.changeRequest.title },
        }
      },
      {
        ...guard(
          'write:flags',
          'experiments',
          'Stop an experiment: ship a variant, roll back to the control, or inconclusive ' +
            '(a protected environment: 202 with the change request)',
          () => [],
        ),
        params: S.KeyParam,
        ...jsonBody(S.ExperimentStop),
        response: {
          200: ExperimentAnswer,
          202: t.Object({
            success: S.Success,
            experiment: S.Experiment,
            change_request: t.Object(
              { id: t.String(), state: t.String(), title: t.String() },
              { description: 'the experiment stops when it is applied' },
            ),
          }),
          ...S.errors(400, 401, 403, 404, 409, 413, 415, 429),
        },
      },
    )
    .get(
      '/api/v1/experiments/:key/results',
      async ({ request, params, query }) => {
        const phase = query.phase === undefined ? undefined : Number(query.phase)
        if (query.phase !== undefined && !/^[1-9][0-9]{0,5}$/.test(query.phase))
          throw validationError([{ path: 'phase', message: 'must be a phase number' }])
        if (query.refresh !== undefined && query.refresh !== 'true' && query.refresh !== 'false')
          throw validationError([{ path: 'refresh', message: 'must be true or false' }])
        return services.experimentResults.results(callerOf(request).actor.projectId, params.key, phase, query.refresh === 'true')
      },
      {
        ...guard('read:flags', 'experiments', "An experiment's results (kept 60 s unless refresh=true)"),
        params: S.KeyParam,
        query: t.Object({
          phase: t.Optional(t.String({ description: 'a phase number (default: the current phase)' })),
          refresh: t.Optional(t.String({ description: 'true: compute now' })),
        }),
        response: { 200: S.ExperimentResults, ...S.errors(400, 401, 403, 404, 429) },
      },
    )
    .get(
      '/api/v1/experiments/:key/results.csv',
      async ({ request, params, query }) => {
        if (query.phase !== undefined && !/^[1-9][0-9]{0,5}$/.test(query.phase))
          throw validationError([{ path: 'phase', message: 'must be a phase number' }])
        const results = await services.experimentResults.results(
          callerOf(request).actor.projectId,
          params.key,
          query.phase === undefined ? undefined : Number(query.phase),
          query.refresh === 'true',
        )
        return new Response(services.experimentResults.csv(results.metrics), {
          headers: {
            'content-type': 'text/csv; charset=utf-8',
            'content-disposition': `attachment; filename="${params.key}-phase-${results.phase}.csv"`,
          },
        })
      },
      {
        ...guard('read:flags', 'experiments', "An experiment's results as CSV: one row per metric and variant"),
        params: S.KeyParam,
        query: t.Object({ phase: t.Optional(t.String()), refresh: t.Optional(t.String()) }),
        response: {
          200: t.String({
            description:
              'text/csv: metric, role, kind, variant, control, units, mean, sum, denominator_sum, lift_relative, lift_absolute, ' +
              'ci_low, ci_high, p_value, p_value_unadjusted, chance_to_win, significant, direction',
          }),
          ...S.errors(400, 401, 403, 404, 429),
        },
      },
    )
}
