// `cli users create`: a user made by the operator (a lost owner, say), through the same user creation and
// instance audit as the API (actor `cli`). Without a password, a one-time password-reset link is stored
// and returned, so no password ever has to pass through a command line.
import type { Store } from '../store'
import type { Settings } from '../settings'
import type { InstanceRole } from '../store/vocabulary/roles'
import { ChangeBus } from '../notices/changes'
import { hashToken } from '../access/tokens'
import { createIdentity } from './service'
import { newSessionValue } from './sessions'

const RESET_MS = 24 * 3_600_000

export async function createUserFromCli(
  store: Store,
  settings: Settings,
  input: { email: string; name: string; instanceRole: InstanceRole; password?: string },
) {
  const identity = createIdentity({ store, bus: new ChangeBus(), settings, limiter: { hit: () => ({ allowed: true, retryAfter: 0 }) } })
  try {
    const token = input.password === undefined ? newSessionValue() : undefined
    const user = await identity.change(async (tx) => {
      const u = await identity.createUser(tx, input, { actor: 'cli', actorType: 'cli' })
      if (token) {
        await store.sessions.insertReset(tx, {
          hash: hashToken(token),
          userId: u.id,
          createdAt: new Date().toISOString(),
          expiresAt: new Date(Date.now() + RESET_MS).toISOString(),
          usedAt: null,
        })
      }
      return u
    })
    const origin = settings.publicUrl ?? `http://localhost:${settings.port}`
    return { id: user.id, email: user.email, instanceRole: user.instanceRole, resetUrl: token ? `${origin}/reset/${token}` : undefined }
  } finally {
    await identity.stop()
  }
}
