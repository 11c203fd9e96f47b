// Two-factor helpers for API and cluster tests: turn TOTP on for a signed-in person (through the routes
// the console uses) and make codes with the same `otpauth` library an authenticator app's algorithm follows.
import * as OTPAuth from 'otpauth'
import { expect } from 'bun:test'
import type { TestServer } from './server'
import { PASSWORD, sapi } from './teams'

export const codeAt = (secret: string, ms: number): string =>
  new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: ms })

/** Enrols `cookie`'s user in TOTP; answers the secret and the recovery codes. */
export async function enrolTotp(srv: TestServer, cookie: string): Promise<{ secret: string; recovery: string[] }> {
  const begin = await sapi(srv, 'POST', '/api/v1/me/totp', { cookie })
  expect(begin.status).toBe(200)
  const secret: string = begin.body.secret
  const confirm = await sapi(srv, 'PUT', '/api/v1/me/totp', { cookie, body: { code: codeAt(secret, Date.now()) } })
  expect(confirm.status).toBe(200)
  return { secret, recovery: confirm.body.recovery_codes }
}

/** The statuses of `n` sign-ins sent at once with one second factor, spread over `servers` in turn. */
export async function concurrentSignIns(servers: TestServer[], email: string, totp: string, n = 5): Promise<number[]> {
  const all = Array.from({ length: n }, (_, i) =>
    sapi(servers[i % servers.length]!, 'POST', '/api/v1/auth/login', { body: { email, password: PASSWORD, totp } }),
  )
  return (await Promise.all(all)).map((r) => r.status)
}
