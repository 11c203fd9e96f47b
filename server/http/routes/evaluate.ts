// POST /api/v1/evaluate: many flags and configs for one context, from the in-memory snapshot.
import { routeModule } from './common'
import { t } from 'elysia'
import { BULK_EVALUATION_BUDGET, sharingPrerequisites, withEvaluationBudget, type Json } from '../../engine'
import { AppError } from '../../errors'
import { configValue } from '../../services/configs'
import type { CachedFlag } from '../../cache/snapshots'
import { tallyEvaluation } from '../evaluation-tally'
import type { AppDeps } from '../deps'
import { callerOf, canEvaluate } from '../auth'
import { isClientKey, visibleToClientKeys } from '../../access/client-keys'
import { contextIn } from '../key-environment'
import { authorizeRoute } from '../request-access'
import { checkContext } from '../evaluation-context'
import { strict } from '../strict-schema'
import { JSON_HEADERS } from '../errors'
import * as S from '../../schemas'

const forbidden = (required: string) => new AppError(403, 'FORBIDDEN', `This token lacks the "${required}" permission`, { required })

export const evaluateRoutes = ({ snapshots }: Pick<AppDeps, 'snapshots'>) =>
  routeModule('evaluate').post(
    '/api/v1/evaluate',
    ({ request, body }) => {
      const { token, actor } = callerOf(request)
      const readFlags = canEvaluate(token, 'read:flags')
      const readConfigs = canEvaluate(token, 'read:configs')
      // A client key sees only the flags and configs marked client_side; the others are left out (or missing).
      const client = isClientKey(token.permissions)
      const visible = (body: Record<string, unknown>) => !client || visibleToClientKeys(body)
      // An omitted list means "everything this token may read"; an explicit list needs the permission.
      if (body.flags !== undefined && !readFlags) throw forbidden('read:flags')
      if (body.configs !== undefined && !readConfigs) throw forbidden('read:configs')
      const snap = snapshots.project(actor.projectId)
      const context = contextIn(token.environment, checkContext(body.context), snap?.project.environments ?? [])
      const flags: Record<string, Json> = {}
      // Only flags with variants name one (docs/lifecycle.md §1); the map is sent only when it has entries.
      let variants: Record<string, string | null> | undefined
      const configs: Record<string, Json> = {}
      const missing: { flags: string[]; configs: string[] } = { flags: [], configs: [] }
      if (snap && readFlags) {
        const evaluate = (f: CachedFlag) => {
          const result = f.compiled.evaluate(context)
          tallyEvaluation(actor.projectId, f.compiled, result, context)
          if (result.variant !== undefined) (variants ??= {})[f.compiled.key] = result.variant
          return result.value
        }
        // One work budget for the whole request, prerequisites shared between flags (engine/budget.ts); an
        // overrun is a 400 EVALUATION_TOO_COSTLY for the request (app.ts).
        withEvaluationBudget(BULK_EVALUATION_BUDGET, () =>
          sharingPrerequisites(() => {
            if (body.flags === undefined)
              for (const [key, f] of snap.flags) {
                if (visible(f.row.body)) flags[key] = evaluate(f)
              }
            else
              for (const key of body.flags) {
                const f = snap.flags.get(key)
                if (f && visible(f.row.body)) flags[key] = evaluate(f)
                else missing.flags.push(key)
              }
          }),
        )
      }
      if (snap && readConfigs) {
        if (body.configs === undefined)
          for (const [key, row] of snap.configs) {
            if (visible(row.body)) configs[key] = configValue(row, context.environment)
          }
        else
          for (const key of body.configs) {
            const row = snap.configs.get(key)
            if (row && visible(row.body)) configs[key] = configValue(row, context.environment)
            else missing.configs.push(key)
          }
      }
      return new Response(JSON.stringify({ flags, ...(variants && { variants }), configs, missing }), {
        headers: { ...JSON_HEADERS, 'Cache-Control': 'private, no-store' },
      })
    },
    {
      transform({ request }) {
        authorizeRoute(request, 'any', 'all')
        const { token } = callerOf(request)
        if (!canEvaluate(token, 'read:flags') && !canEvaluate(token, 'read:configs')) throw forbidden('read:flags')
      },
      detail: {
        tags: ['evaluation'],
        summary: 'Evaluate many flags and configs for one context',
        security: [{ bearer: [] }],
        description:
          'Permission: `read:flags` and/or `read:configs`, or a client key (client_side flags and configs only). ' +
          'An environment key evaluates in its environment.',
        'x-permission': 'read:flags|read:configs',
        'x-rate-class': 'evaluation',
      },
      parse: 'json',
      query: t.Object({}),
      body: strict(
        t.Object({
          context: t.Optional(S.EvaluationContext),
          flags: t.Optional(t.Array(t.String(), { description: 'flag keys; omitted = every flag the token may read' })),
          configs: t.Optional(t.Array(t.String(), { description: 'config keys; omitted = every config the token may read' })),
        }),
      ),
      response: {
        200: t.Object({
          flags: S.Dict(t.Any()),
          variants: t.Optional(
            S.Dict(
              t.Nullable(t.String()),
              'for the flags with variants: the variant served (null: the off value); absent when none was evaluated',
            ),
          ),
          configs: S.Dict(t.Any()),
          missing: t.Object({ flags: t.Array(t.String()), configs: t.Array(t.String()) }),
        }),
        ...S.errors(400, 401, 403, 413, 415, 429),
      },
    },
  )
