// /api/v1/me/totp: two-factor sign-in for the signed-in person (identity/two-factor.ts).
import { t } from 'elysia'
import type { AppDeps } from '../deps'
import { callerOf } from '../auth'
import { AppError } from '../../errors'
import { twoFactor } from '../../identity/two-factor'
import { clientAddress } from '../../identity/request-meta'
import * as S from '../../schemas'
import { guard, jsonBody, routeModule } from './common'

const Code = t.Object({ code: t.String({ maxLength: 32, description: 'a current six-digit code (or, to turn it off, a recovery code)' }) })

export const totpRoutes = ({ identity, store }: Pick<AppDeps, 'identity' | 'store'>) => {
  const totp = twoFactor(store, identity)
  const personOf = (request: Request) => {
    const caller = callerOf(request)
    const person = caller.person?.sessionId !== undefined ? identity.directory.get(caller.person.userId) : undefined
    if (!person) throw new AppError(401, 'UNAUTHORIZED', 'Not signed in')
    return person
  }
  return routeModule('me-totp')
    .post('/api/v1/me/totp', async ({ request }) => totp.begin(personOf(request), clientAddress(request)), {
      ...guard('session', 'me', 'Start two-factor sign-in: a secret to add to an authenticator app (confirm with PUT)'),
      response: { 200: t.Object({ secret: t.String(), otpauth_url: t.String() }), ...S.errors(401, 403, 409, 429) },
    })
    .put('/api/v1/me/totp', async ({ request, body }) => totp.confirm(personOf(request), body.code, clientAddress(request)), {
      ...guard('session', 'me', 'Confirm two-factor sign-in with a first code; answers 10 one-time recovery codes (shown once)'),
      ...jsonBody(Code),
      response: { 200: t.Object({ recovery_codes: t.Array(t.String()) }), ...S.errors(400, 401, 403, 409, 413, 415, 429) },
    })
    .delete(
      '/api/v1/me/totp',
      async ({ request, body }) => {
        await totp.disable(personOf(request), body.code, clientAddress(request))
        return { success: true as const }
      },
      {
        ...guard('session', 'me', 'Turn two-factor sign-in off with a current code or a recovery code'),
        ...jsonBody(Code),
        response: { 200: t.Object({ success: S.Success }), ...S.errors(400, 401, 403, 409, 413, 415, 429) },
      },
    )
}
