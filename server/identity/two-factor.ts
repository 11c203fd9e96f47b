// Turning two-factor sign-in on and off (teams.md §3): POST hands out a secret to scan, PUT confirms it with
// a first code and answers 10 one-time recovery codes (stored hashed), DELETE turns it off with a code.
// The secret is shown only in the POST answer; lists, logs and audit never see it or the codes.
import type { Store } from '../store'
import { conflict, forbidden } from '../errors'
import type { Identity } from './service'
import type { Person } from './directory'
import { acceptTotp, hashRecoveryCode, newRecoveryCodes, newTotpSecret, otpauthUrl } from './totp'

const wrongCode = () => forbidden('INVALID_TOTP', 'Wrong or already used code')

export function twoFactor(store: Store, identity: Identity) {
  return {
    async begin(person: Person, ip: string | null): Promise<{ secret: string; otpauth_url: string }> {
      if (person.user.totpSecret !== null) throw conflict('TOTP_ENABLED', 'Two-factor sign-in is already on; turn it off first')
      const secret = newTotpSecret()
      await identity.change(async (tx, notify) => {
        await store.users.update(tx, person.user.id, { totpPending: secret, updatedAt: new Date().toISOString() })
        await identity.audit(tx, {
          actor: person.user.email,
          actorType: 'user',
          action: 'totp_begin',
          resourceType: 'user',
          resourceKey: person.user.id,
          ip,
        })
        notify({ resourceType: 'user', resourceKey: person.user.id })
      })
      await identity.directory.refresh(person.user.id)
      return { secret, otpauth_url: otpauthUrl(secret, person.user.email) }
    },

    async confirm(person: Person, code: string, ip: string | null): Promise<{ recovery_codes: string[] }> {
      const codes = newRecoveryCodes()
      await identity.change(async (tx, notify) => {
        const user = await store.users.get(tx, person.user.id)
        if (!user?.totpPending) throw conflict('TOTP_NOT_STARTED', 'Start with POST /api/v1/me/totp')
        const step = acceptTotp(user.totpPending, code, null)
        if (step === undefined) throw wrongCode()
        await store.users.update(tx, user.id, {
          totpSecret: user.totpPending,
          totpPending: null,
          totpLastStep: step,
          recoveryCodes: codes.map(hashRecoveryCode),
          updatedAt: new Date().toISOString(),
        })
        await identity.audit(tx, {
          actor: user.email,
          actorType: 'user',
          action: 'totp_enable',
          resourceType: 'user',
          resourceKey: user.id,
          ip,
        })
        notify({ resourceType: 'user', resourceKey: user.id })
      })
      await identity.directory.refresh(person.user.id)
      return { recovery_codes: codes }
    },

    async disable(person: Person, code: string, ip: string | null): Promise<void> {
      // Wrong codes are throttled like sign-in failures (the same per-account state), so a stolen cookie
      // cannot guess codes here; the failure is counted after the refused transaction has rolled back.
      const email = person.user.email
      await identity.throttle.checkAccount(email)
      let wrong = false
      try {
        await identity.change(async (tx, notify) => {
          const user = await store.users.get(tx, person.user.id)
          if (!user?.totpSecret) throw conflict('TOTP_NOT_ENABLED', 'Two-factor sign-in is off')
          if (!(await identity.spendSecondFactor(tx, user, code))) {
            wrong = true
            throw wrongCode()
          }
          await store.users.update(tx, user.id, {
            totpSecret: null,
            totpPending: null,
            totpLastStep: null,
            recoveryCodes: [],
            updatedAt: new Date().toISOString(),
          })
          await identity.audit(tx, {
            actor: user.email,
            actorType: 'user',
            action: 'totp_disable',
            resourceType: 'user',
            resourceKey: user.id,
            ip,
          })
          notify({ resourceType: 'user', resourceKey: user.id })
        })
      } catch (err) {
        if (wrong) await identity.throttle.failed(email)
        throw err
      }
      await identity.throttle.succeeded(email)
      await identity.directory.refresh(person.user.id)
    },
  }
}
