// POST /api/v1/relay/verify: a relay (docs/operations.md, Relays) asks which of the tokens its clients
// presented are valid, by their SHA-256 only, and caches the answers. Served by an origin from its token map,
// and by a relay to the relays that follow it (from its own cache, asking its upstream for what it lacks).
import { t } from 'elysia'
import type { TokenRow } from '../../store/tokens'
import { expiryOf } from '../../access/tokens'
import type { AppDeps } from '../deps'
import { callerOf, type Caller } from '../auth'
import * as S from '../../schemas'
import { guard, jsonBody, routeModule } from './common'

/** Hashes one request may ask about. */
export const MAX_VERIFY_HASHES = 1000

const KeyVerdict = t.Object(
  {
    hash: t.String({ description: 'the SHA-256 (hex) that was asked about' }),
    valid: t.Boolean({ description: "false: unknown, revoked, expired, of another project, or outside the relay key's environment" }),
    token_prefix: t.Optional(t.String()),
    permissions: t.Optional(t.Array(S.Permission)),
    environment: t.Optional(t.Union([t.String(), t.Null()], { description: 'the one environment the key is bound to (null: none)' })),
    environments: t.Optional(
      t.Union([t.Array(t.String()), t.Null()], { description: 'environments its write permissions are limited to (null: all)' }),
    ),
    expires_at: t.Optional(t.Union([t.String(), t.Null()])),
  },
  { title: 'KeyVerdict' },
)

export const RelayVerifyAnswer = t.Object(
  {
    project: t.Object({ id: t.String(), slug: t.String(), name: t.String() }, { description: "the relay key's project" }),
    environment: t.Union([t.String(), t.Null()], { description: 'the environment the relay key is bound to (null: none)' }),
    keys: t.Array(KeyVerdict),
  },
  { title: 'RelayVerifyAnswer' },
)

/** Whether `token` may be served by the relay holding `relayKey`: same project, unexpired, its owner (a
 *  personal token) still in the project, and within the relay key's environment when it has one. */
function verdict(deps: Pick<AppDeps, 'access'>, relayKey: TokenRow, hash: string, token: TokenRow | undefined, now: number) {
  const ok =
    token !== undefined &&
    token.projectId === relayKey.projectId &&
    expiryOf(token) > now &&
    deps.access.personalTokenLive(token) &&
    (relayKey.environment === null || token.environment === relayKey.environment)
  if (!ok) return { hash, valid: false }
  return {
    hash,
    valid: true,
    token_prefix: token.tokenPrefix,
    permissions: token.permissions,
    environment: token.environment,
    environments: token.environments,
    expires_at: token.expiresAt,
  }
}

export const relayRoutes = (deps: Pick<AppDeps, 'snapshots' | 'access' | 'authenticator'>) =>
  routeModule('relay').post(
    '/api/v1/relay/verify',
    async ({ request, body }) => {
      const caller: Caller = callerOf(request)
      const hashes = [...new Set(body.hashes)]
      await deps.authenticator.lookupHashes(hashes)
      const project = deps.snapshots.project(caller.token.projectId)?.project
      const now = Date.now()
      return {
        project: {
          id: caller.token.projectId,
          slug: project?.slug ?? caller.token.projectId,
          name: project?.name ?? caller.token.projectId,
        },
        environment: caller.token.environment,
        keys: hashes.map((h) => verdict(deps, caller.token, h, deps.snapshots.token(h), now)),
      }
    },
    {
      ...guard('relay', 'relay', "Verify the keys a relay's clients presented (by SHA-256; relay key required)"),
      ...jsonBody(
        t.Object(
          {
            hashes: t.Array(t.String({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of a token, lowercase hex' }), {
              minItems: 1,
              maxItems: MAX_VERIFY_HASHES,
            }),
          },
          { title: 'RelayVerify' },
        ),
      ),
      response: { 200: RelayVerifyAnswer, ...S.errors(400, 401, 403, 413, 415, 429) },
    },
  )
