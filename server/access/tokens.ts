// What identifies an access token and when it stops counting: its SHA-256 hash (the only form stored) and its
// expiry. Below identity/, cache/, http/ and services/ alike, which all read tokens (services/tokens.ts makes
// and revokes them).
import type { TokenRow } from '../store/tokens'

export const hashToken = (token: string): string => Bun.SHA256.hash(token, 'hex') as string
export const tokenPrefixOf = (token: string): string => token.slice(0, 12)

/** Unix ms from which the token is refused; Infinity when it never expires. */
export const expiryOf = (row: TokenRow): number => (row.expiresAt === null ? Infinity : Date.parse(row.expiresAt))
export const isExpired = (row: TokenRow, now = Date.now()): boolean => expiryOf(row) <= now
