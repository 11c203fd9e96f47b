// Two-factor codes (TOTP, RFC 6238: SHA-1, 6 digits, 30 s) through the `otpauth` library, and one-time
// recovery codes (stored as SHA-256 hashes). A code is accepted once: its time step must be later than
// the last one accepted.
import * as OTPAuth from 'otpauth'
import { hashToken } from '../access/tokens'

const PERIOD = 30

export const newTotpSecret = (): string => new OTPAuth.Secret({ size: 20 }).base32

const totpOf = (secret: string, label = 'Flagship') =>
  new OTPAuth.TOTP({ issuer: 'Flagship', label, algorithm: 'SHA1', digits: 6, period: PERIOD, secret: OTPAuth.Secret.fromBase32(secret) })

export const otpauthUrl = (secret: string, email: string): string => totpOf(secret, email).toString()

/** The time step the code belongs to (±1 step of clock drift), or undefined when it is wrong or already used. */
export function acceptTotp(secret: string, code: unknown, lastStep: number | null, now = Date.now()): number | undefined {
  if (typeof code !== 'string' || !/^\d{6}$/.test(code)) return undefined
  const delta = totpOf(secret).validate({ token: code, timestamp: now, window: 1 })
  if (delta === null) return undefined
  const step = Math.floor(now / 1000 / PERIOD) + delta
  if (lastStep !== null && step <= lastStep) return undefined
  return step
}

/** The current code of a secret (tests and the console's own checks use the library the same way). */
export const totpCode = (secret: string, now = Date.now()): string => totpOf(secret).generate({ timestamp: now })

const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789'
export function newRecoveryCodes(count = 10): string[] {
  return Array.from({ length: count }, () => {
    let out = ''
    // 248 = 8 × 31: bytes below it map to the alphabet without bias.
    while (out.length < 10)
      for (const b of crypto.getRandomValues(new Uint8Array(16)))
        if (b < 248 && out.length < 10) out += RECOVERY_ALPHABET[b % RECOVERY_ALPHABET.length]
    return `${out.slice(0, 5)}-${out.slice(5)}`
  })
}
export const hashRecoveryCode = (code: string): string => hashToken(`recovery:${code.trim().toLowerCase()}`)
