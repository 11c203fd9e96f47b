// GET /api/v1/audit (permission *): newest first, with filters.
import { t } from 'elysia'
import { auditView } from '../../services/audit'
import { validationError } from '../../errors'
import { isIsoDate } from '../../engine'
import { ACTIONS as ACTION_LIST, RESOURCE_TYPES as RESOURCE_TYPE_LIST } from '../../store/vocabulary/changes'
import type { AppDeps } from '../deps'
import { callerOf } from '../auth'
import * as S from '../../schemas'
import { guard, listBody, paging, routeModule } from './common'

const RESOURCE_TYPES: readonly string[] = RESOURCE_TYPE_LIST
const ACTIONS: readonly string[] = ACTION_LIST
const isoDate = t.String({ format: 'date-time', description: 'ISO 8601' })

export const auditRoutes = ({ services }: Pick<AppDeps, 'services'>) =>
  routeModule('audit').get(
    '/api/v1/audit',
    async ({ request, query }) => {
      // Checked here rather than with t.UnionEnum: Elysia fills an absent optional enum query with its first member.
      const issues = [
        ...(query.resource_type !== undefined && !RESOURCE_TYPES.includes(query.resource_type)
          ? [{ path: 'resource_type', message: `must be one of ${RESOURCE_TYPES.join(', ')}` }]
          : []),
        ...(query.action !== undefined && !ACTIONS.includes(query.action)
          ? [{ path: 'action', message: `must be one of ${ACTIONS.join(', ')}` }]
          : []),
        // A date that does not exist (February 30th) is refused, not rolled over into March.
        ...(['since', 'until'] as const)
          .filter((f) => query[f] !== undefined && !isIsoDate(query[f]))
          .map((f) => ({ path: f, message: 'must be an ISO 8601 date-time that exists' })),
      ]
      if (issues.length) throw validationError(issues)
      const { limit, offset } = paging(query)
      const toIso = (v?: string) => (v ? new Date(v).toISOString() : undefined)
      const { rows, total, names } = await services.audit.page(
        callerOf(request).actor.projectId,
        {
          resourceType: query.resource_type,
          resourceKey: query.resource_key,
          action: query.action,
          actor: query.actor,
          since: toIso(query.since),
          until: toIso(query.until),
        },
        limit,
        offset,
      )
      return listBody(
        'entries',
        rows.map((r) => auditView(r, names)),
        total,
        offset,
      )
    },
    {
      ...guard('*', 'audit', 'Read the audit log, newest first'),
      query: t.Object({
        ...S.Page.properties,
        resource_type: t.Optional(t.String({ description: RESOURCE_TYPES.join(', ') })),
        resource_key: t.Optional(t.String()),
        action: t.Optional(t.String({ description: ACTIONS.join(', ') })),
        actor: t.Optional(t.String({ description: 'token prefix (as entries record it), or `cli`' })),
        since: t.Optional(isoDate),
        until: t.Optional(isoDate),
      }),
      response: {
        200: t.Object({ entries: t.Array(S.AuditEntry), total: t.Integer(), has_more: t.Boolean() }),
        ...S.errors(400, 401, 403, 429),
      },
    },
  )
