// POST /api/v1/evaluate: many flags and configs for one context, from the in-memory snapshot.
import { routeModule } from './common'
import { t } from 'elysia'
import { BULK_EVALUATION_BUDGET, sharingPrerequisites, withEvaluationBudget, type Json } from '../../engine'
import { AppError } from '../../errors'
import { configValue } from '../../services/configs'
import type { CachedFlag } from '../../cache/snapshots'
import { countEvaluation } from '../../usage/counter'
import { recordExposure } from '../../experiments/exposures'
import type { AppDeps } from '../deps'
import { callerOf, can } from '../auth'
import { authorizeRoute } from '../request-access'
import { checkContext } from '../evaluation-context'
import { strict } from '../strict-schema'
import { JSON_HEADERS } from '../errors'
import * as S from '../../schemas'

const forbidden = (required: string) => new AppError(403, 'FORBIDDEN', `This token lacks the "${required}" permission`, { required })

export const evaluateRoutes = ({ snapshots }: Pick<AppDeps, 'snapshots'>) =>
  routeModule('evaluate').post('/api/v1/evaluate', ({ request, body }) => {
    const { token, actor } = callerOf(request)
    const readFlags = can(token, 'read:flags')
    const readConfigs = can(token, 'read:configs')
    // An omitted list means "everything this token may read"; an explicit list needs the permission.
    if (body.flags !== undefined && !readFlags) throw forbidden('read:flags')
    if (body.configs !== undefined && !readConfigs) throw forbidden('read:configs')
    const context = checkContext(body.context)
    const snap = snapshots.project(actor.projectId)
    const flags: Record<string, Json> = {}
    // Only flags with variants name one (docs/lifecycle.md §1); the map is sent only when it has entries.
    let variants: Record<string, string | null> | undefined
    const configs: Record<string, Json> = {}
    const missing: { flags: string[]; configs: string[] } = { flags: [], configs: [] }
    if (snap && readFlags) {
      const evaluate = (f: CachedFlag) => {
        const result = f.compiled.evaluate(context)
        countEvaluation(actor.projectId, f.compiled, result, context.environment)
        recordExposure(actor.projectId, f.compiled, result, context)
        if (result.variant !== undefined) (variants ??= {})[f.compiled.key] = result.variant
        return result.value
      }
      // One work budget for the whole request, prerequisites shared between flags (engine/budget.ts); an
      // overrun is a 400 EVALUATION_TOO_COSTLY for the request (app.ts).
      withEvaluationBudget(BULK_EVALUATION_BUDGET, () => sharingPrerequisites(() => {
        if (body.flags === undefined) for (const [key, f] of snap.flags) flags[key] = evaluate(f)
        else for (const key of body.flags) {
          const f = snap.flags.get(key)
          if (f) flags[key] = evaluate(f)
          else missing.flags.push(key)
        }
      }))
    }
    if (snap && readConfigs) {
      if (body.configs === undefined) for (const [key, row] of snap.configs) configs[key] = configValue(row, context.environment)
      else for (const key of body.configs) {
        const row = snap.configs.get(key)
        if (row) configs[key] = configValue(row, context.environment)
        else missing.configs.push(key)
      }
    }
    return new Response(JSON.stringify({ flags, ...(variants && { variants }), configs, missing }), { headers: { ...JSON_HEADERS, 'Cache-Control': 'private, no-store' } })
  }, {
    transform({ request }) {
      authorizeRoute(request, 'any', 'all')
      const { token } = callerOf(request)
      if (!can(token, 'read:flags') && !can(token, 'read:configs')) throw forbidden('read:flags')
    },
    detail: { tags: ['evaluation'], summary: 'Evaluate many flags and configs for one context', security: [{ bearer: [] }], description: 'Permission: `read:flags` and/or `read:configs`', 'x-permission': 'read:flags|read:configs' },
    parse: 'json',
    query: t.Object({}),
    body: strict(t.Object({
      context: t.Optional(S.EvaluationContext),
      flags: t.Optional(t.Array(t.String(), { description: 'flag keys; omitted = every flag the token may read' })),
      configs: t.Optional(t.Array(t.String(), { description: 'config keys; omitted = every config the token may read' })),
    })),
    response: {
      200: t.Object({
        flags: S.Dict(t.Any()),
        variants: t.Optional(S.Dict(t.Nullable(t.String()), 'for the flags with variants: the variant served (null: the off value); absent when none was evaluated')),
        configs: S.Dict(t.Any()),
        missing: t.Object({ flags: t.Array(t.String()), configs: t.Array(t.String()) }),
      }),
      ...S.errors(400, 401, 403, 413, 415, 429),
    },
  })
