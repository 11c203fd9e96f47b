// GET /api/v1/experiments/:key/units (docs/experiments.md): the units per variant of a phase, counted
// without computing the results (the console's experiment list reads one per row), and with
// `timeline=true` their cumulative count per day (the results page's chart).
import { t } from 'elysia'
import type { AppDeps } from '../deps'
import { callerOf } from '../auth'
import * as S from '../../schemas'
import { guard, routeModule } from './common'
import { validationError } from '../../errors'

const ExperimentUnits = t.Object(
  {
    experiment: t.String(),
    phase: t.Integer({ description: 'the phase counted (0: a draft, which has none)' }),
    units: S.Dict(t.Integer(), 'variant -> units seen only in it'),
    multiple_exposures: t.Integer({ description: 'units seen in more than one variant (left out)' }),
    timeline: t.Optional(
      t.Object(
        {
          at: t.Array(S.Timestamp, {
            description: 'the start of the first day, then the end of each day with new units (the last: at most now)',
          }),
          units: S.Dict(t.Array(t.Integer()), 'variant -> units counted up to each instant of `at`'),
        },
        { description: 'with timeline=true: cumulative units per variant per day of the phase (kept 60 s)' },
      ),
    ),
  },
  { title: 'ExperimentUnits' },
)

export const experimentUnitRoutes = ({ services }: Pick<AppDeps, 'services'>) =>
  routeModule('experiment-units').get(
    '/api/v1/experiments/:key/units',
    async ({ request, params, query }) => {
      if (query.phase !== undefined && !/^[1-9][0-9]{0,5}$/.test(query.phase))
        throw validationError([{ path: 'phase', message: 'must be a phase number' }])
      if (query.timeline !== undefined && query.timeline !== 'true' && query.timeline !== 'false')
        throw validationError([{ path: 'timeline', message: 'must be true or false' }])
      const phase = query.phase === undefined ? undefined : Number(query.phase)
      return services.experimentUnits.units(callerOf(request).actor.projectId, params.key, { phase, timeline: query.timeline === 'true' })
    },
    {
      ...guard('read:flags', 'experiments', "An experiment's units per variant (without its results): cheap enough for a list"),
      params: S.KeyParam,
      query: t.Object({
        phase: t.Optional(t.String({ description: 'a phase number (default: the current phase)' })),
        timeline: t.Optional(t.String({ description: 'true: also the cumulative units per variant per day' })),
      }),
      response: { 200: ExperimentUnits, ...S.errors(400, 401, 403, 404, 429) },
    },
  )
