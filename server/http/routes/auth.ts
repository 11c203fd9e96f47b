// /api/v1/auth: first-run setup, password sign-in and sign-out (teams.md §3). Sign-in routes (`public`) take no
// caller; the app applies the cross-site rules to them (csrf.ts) and they throttle per address and account.
import { t } from 'elysia'
import type { AppDeps } from '../deps'
import { callerOf } from '../auth'
import { userView } from '../../identity/service'
import { clearedSessionCookie } from '../../identity/cookies'
import * as S from '../../schemas'
import { guard, jsonBody, routeModule } from './common'

export const authRoutes = ({ identity, settings }: Pick<AppDeps, 'identity' | 'settings'>) =>
  routeModule('auth')
    .get('/api/v1/auth/methods', () => identity.methods(), {
      ...guard('public', 'auth', 'How one may sign in here, and whether the first-run setup is still open'),
      response: { 200: S.AuthMethods },
    })
    .post(
      '/api/v1/auth/setup',
      async ({ request, body, set }) => {
        const { user, cookie } = await identity.setup(body, request)
        set.status = 201
        set.headers['set-cookie'] = cookie
        return { user: userView(user) }
      },
      {
        ...guard('public', 'auth', 'Create the first owner with the setup code from the log, and sign in'),
        ...jsonBody(S.Setup),
        response: { 201: S.SignedIn, ...S.errors(400, 403, 409, 413, 415, 429) },
      },
    )
    .post(
      '/api/v1/auth/login',
      async ({ request, body, set }) => {
        const { user, cookie } = await identity.login(body, request)
        set.headers['set-cookie'] = cookie
        return { user: userView(user) }
      },
      {
        ...guard('public', 'auth', 'Sign in with email and password (and the two-factor code when enabled)'),
        ...jsonBody(S.Login),
        response: { 200: S.SignedIn, ...S.errors(400, 401, 403, 413, 415, 429) },
      },
    )
    .post(
      '/api/v1/auth/logout',
      async ({ request, set }) => {
        const caller = callerOf(request)
        const person = caller.person?.sessionId !== undefined ? identity.directory.get(caller.person.userId) : undefined
        if (person) await identity.logout(person, caller.person!.sessionId!, request)
        set.headers['set-cookie'] = clearedSessionCookie(settings)
        return { success: true as const }
      },
      {
        ...guard('session', 'auth', 'Sign out: ends this session on the server'),
        response: { 200: t.Object({ success: S.Success }), ...S.errors(401, 403, 429) },
      },
    )
