// GET /api/v1/definitions: everything a client needs to evaluate locally (the SDK, `bootstrap`): the
// project's environments and change number, its stored flags with the segments they use (read:flags) and
// its configs (read:configs), from the in-memory snapshot. An environment key gets its environment's overrides
// only. The document is built once per snapshot revision and kind of reader, then served with a strong ETag (304 on If-None-Match).
import { t } from 'elysia'
import { segmentKeysOf } from '../../engine'
import { AppError } from '../../errors'
import { configView } from '../../services/configs'
import { flagView } from '../../services/flags'
import { segmentView } from '../../services/segments'
import type { AppDeps } from '../deps'
import { callerOf, can } from '../auth'
import { authorizeRoute } from '../request-access'
import { etagOf, sendCached } from '../caching'
import { BoundedMemo } from '../bounded-memo'
import * as S from '../../schemas'
import { routeModule } from './common'
import { environmentMismatch } from '../key-environment'
import { experimentRegistry } from '../../experiments/registry'
import { releasePlanRegistry } from '../../experiments/release-registry'

interface Built {
  revision: number
  head: number
  text: string
  etag: string
}

const withKey = <T extends object>(key: string, view: T) => ({ key, ...view })

/** Keeps only `environment`'s override of a document (the others cannot matter to its reader). */
function onlyEnvironment<T extends { environments?: Record<string, unknown> }>(doc: T, environment: string | undefined): T {
  if (environment === undefined || !doc.environments) return doc
  const kept = Object.hasOwn(doc.environments, environment) ? { [environment]: doc.environments[environment] } : {}
  return { ...doc, environments: kept }
}

export const definitionRoutes = ({ snapshots, hub }: Pick<AppDeps, 'snapshots' | 'hub'>) => {
  // One document per (project, what the token reads, environment); rebuilt when the snapshot changes.
  const built = new BoundedMemo<Built>(1000, 512)

  return routeModule('definitions').get(
    '/api/v1/definitions',
    ({ request, query }) => {
      authorizeRoute(request, 'any', 'all')
      const { token } = callerOf(request)
      const readFlags = can(token, 'read:flags')
      const readConfigs = can(token, 'read:configs')
      if (!readFlags && !readConfigs)
        throw new AppError(403, 'FORBIDDEN', 'This token lacks the "read:flags" permission', { required: 'read:flags' })
      const snap = snapshots.project(token.projectId)
      if (!snap) throw new AppError(404, 'NOT_FOUND', 'Project not found')
      // An environment key's document holds its environment's overrides only (environments.md §2).
      if (token.environment !== null && query.environment !== undefined && query.environment !== token.environment)
        throw environmentMismatch(token.environment, query.environment)
      const environment = token.environment ?? query.environment
      if (environment !== undefined && !snap.project.environments.includes(environment)) {
        throw new AppError(
          400,
          'VALIDATION_ERROR',
          `Unknown environment "${environment}"; known: ${snap.project.environments.join(', ')}`,
          { issues: [{ path: 'environment', message: 'unknown environment' }] },
        )
      }
      const slot =
        `${token.projectId}\u0000${readFlags ? 'f' : ''}${readConfigs ? 'c' : ''}` +
        `${token.environment !== null ? 'k' : ''}\u0000${environment ?? ''}`
      const head = hub.head(token.projectId)
      let doc = built.get(slot)
      if (!doc || doc.revision !== snap.revision || doc.head !== head) {
        const flags = readFlags ? [...snap.flags.values()].map((f) => onlyEnvironment(flagView(f.row), environment)) : []
        const used = new Set(flags.flatMap((f) => segmentKeysOf(f)))
        const segments = readFlags
          ? [...snap.segments.values()].filter((r) => used.has(r.key)).map((r) => withKey(r.key, segmentView(r)))
          : []
        const configs = readConfigs
          ? [...snap.configs.values()].map((r) => onlyEnvironment(withKey(r.key, configView(r)), environment))
          : []
        // The running experiments' flags: an SDK records their exposures (docs/experiments.md §1).
        const experiments = readFlags
          ? experimentRegistry
              .runningInProject(token.projectId)
              .filter((x) => environment === undefined || x.environment === environment)
              .map((x) => ({ key: x.key, flag: x.flagKey, environment: x.environment, unit: x.unit }))
          : []
        // Flags under a running (or paused) release plan: an SDK records which arm a unit got (docs/experiments.md §7),
        // when the flag serves the current step's percentage.
        const releasePlans = readFlags
          ? releasePlanRegistry
              .measuredInProject(token.projectId)
              .filter((x) => environment === undefined || x.environment === environment)
              .map((x) => ({
                id: x.id,
                flag: x.flagKey,
                environment: x.environment,
                unit: x.unit,
                ...(Number.isFinite(x.percentage) && { percentage: x.percentage }),
                ...(x.variant !== undefined && { variant: x.variant }),
              }))
          : []
        const text = JSON.stringify({
          version: head,
          environments: snap.project.environments,
          ...(token.environment !== null && { environment: token.environment }),
          flags,
          configs,
          segments,
          ...(experiments.length > 0 && { experiments }),
          ...(releasePlans.length > 0 && { release_plans: releasePlans }),
        })
        doc = { revision: snap.revision, head, text, etag: etagOf(text) }
        built.set(slot, doc)
      }
      return sendCached(request, doc.text, doc.etag, 'private, no-cache')
    },
    {
      query: t.Object({
        environment: t.Optional(t.String({ description: "keep only this environment's overrides (evaluate with this environment)" })),
      }),
      detail: {
        tags: ['evaluation'],
        summary: 'Everything needed to evaluate locally (SDKs, bootstrap)',
        security: [{ bearer: [] }],
        'x-permission': 'read:flags|read:configs',
        'x-rate-class': 'evaluation',
        description:
          'Permission: `read:flags` (flags, and the segments they use) and/or `read:configs` (configs); ' +
          'the kinds the token may not read are empty lists. ' +
          "`version` is the project's change number (the change stream's ids). Strong ETag; 304 on If-None-Match.",
      },
      response: {
        200: t.Object(
          {
            version: t.Integer({ description: "the project's change number this document reflects" }),
            environments: t.Array(t.String()),
            environment: t.Optional(
              t.String({
                description: "an environment key's environment: every evaluation runs in it (the document holds its overrides only)",
              }),
            ),
            flags: t.Array(S.Flag),
            configs: t.Array(t.Object({ key: t.String(), ...S.Config.properties })),
            segments: t.Array(t.Object({ key: t.String(), ...S.Segment.properties })),
            experiments: t.Optional(
              t.Array(
                t.Object({
                  key: t.String(),
                  flag: t.String(),
                  environment: t.String(),
                  unit: t.String({ description: 'the context attribute that names a unit' }),
                }),
                {
                  description:
                    'the running experiments: SDKs record exposures of their flags in their environment ' +
                    'and send them to POST /api/v1/events (absent when none runs)',
                },
              ),
            ),
            release_plans: t.Optional(
              t.Array(
                t.Object({
                  id: t.String(),
                  flag: t.String(),
                  environment: t.String(),
                  unit: t.String({ description: 'the context attribute the rollout buckets by' }),
                  percentage: t.Optional(
                    t.Number({
                      description:
                        "the current step's percentage (with a variant, that variant's weight): a unit served at another " +
                        'is not recorded (the flag and the plan may change one after the other)',
                    }),
                  ),
                  variant: t.Optional(
                    t.String({ description: 'a flag with variants: the new variant (its units are `rollout`, the others `off`)' }),
                  ),
                }),
                {
                  description:
                    'the running or paused release plans: SDKs record exposures of their flags in their environment ' +
                    '(variant `rollout` inside the rollout, `off` outside) and send them to POST /api/v1/events (absent when none)',
                },
              ),
            ),
          },
          { title: 'Definitions' },
        ),
        ...S.errors(400, 401, 403, 429),
      },
    },
  )
}
