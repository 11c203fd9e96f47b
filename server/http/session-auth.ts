// Session requests (a session cookie and no token): the caller is the signed-in person, found in memory
// (identity/sessions.ts, identity/directory.ts). Which project they act on is decided per route by
// access/authorize.ts from the Flagship-Project header; until then the caller holds no permissions.
import type { Identity } from '../identity/service'
import { AppError } from '../services/errors'
import type { Caller } from './auth'

export async function sessionCaller(identity: Identity, value: string): Promise<Caller> {
  const found = value === '' ? undefined : await identity.personOf(value)
  if (!found) throw new AppError(401, 'UNAUTHORIZED', 'Not signed in (the session ended or is unknown); sign in again')
  const { person, sessionId } = found
  const now = new Date().toISOString()
  return {
    token: {
      hash: `session:${sessionId}`, projectId: '', name: person.user.email, tokenPrefix: 'session', permissions: [],
      expiresAt: null, createdAt: now, lastUsedAt: null, ownerUserId: person.user.id, environments: null,
    },
    actor: { projectId: '', name: person.user.email, type: 'user', credential: 'session' },
    expiresAtMs: Infinity,
    rateKeys: { evaluation: `session:${sessionId}:evaluation`, management: `session:${sessionId}:management` },
    person: { userId: person.user.id, sessionId },
  }
}
