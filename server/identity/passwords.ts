// Passwords: argon2id through Bun.password, the length and not-the-email rule (teams.md §3), and a dummy
// verification so an unknown email costs the same time as a wrong password (no enumeration by timing).
import { validationError } from '../errors'

export const MIN_PASSWORD = 12
export const MAX_PASSWORD = 256

export const hashPassword = (password: string): Promise<string> => Bun.password.hash(password, { algorithm: 'argon2id' })

/** A hash of a random value, made once: verified against when the account has no password, so that path
 *  runs the same argon2id work as a real check. */
let dummy: Promise<string> | undefined
const dummyHash = () => (dummy ??= hashPassword(crypto.randomUUID()))

/** True only for a real hash that matches; with no hash it still spends one verification. */
export async function verifyPassword(password: string, hash: string | null | undefined): Promise<boolean> {
  if (!hash) {
    await Bun.password.verify(password, await dummyHash()).catch(() => false)
    return false
  }
  return Bun.password.verify(password, hash).catch(() => false)
}

/** Warms the dummy hash at start, so the first unknown-email sign-in is not slower than the rest. */
export const warmPasswords = (): Promise<unknown> => dummyHash()

export function passwordIssue(password: unknown, email: string, path = 'password'): { path: string; message: string } | undefined {
  if (typeof password !== 'string') return { path, message: 'must be a string' }
  if ([...password].length < MIN_PASSWORD) return { path, message: `must be at least ${MIN_PASSWORD} characters` }
  if ([...password].length > MAX_PASSWORD) return { path, message: `must be at most ${MAX_PASSWORD} characters` }
  if (password.trim() === '') return { path, message: 'must not be only whitespace' }
  if (password.trim().toLowerCase() === email.trim().toLowerCase()) return { path, message: 'must not be the email address' }
  return undefined
}

export function assertPassword(password: unknown, email: string, path = 'password'): asserts password is string {
  const issue = passwordIssue(password, email, path)
  if (issue) throw validationError([issue])
}
