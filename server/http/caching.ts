// Strong ETags (decisions.md §7) and Cache-Control for cacheable reads, with 304 on If-None-Match.
import { JSON_HEADERS } from './errors'

/** `"` + base64url of the first 16 bytes of SHA-256(body) + `"`. */
export function etagOf(body: string): string {
  const digest = new Bun.CryptoHasher('sha256').update(body).digest()
  return `"${digest.subarray(0, 16).toString('base64url')}"`
}

function matches(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false
  if (ifNoneMatch.trim() === '*') return true
  return ifNoneMatch.split(',').some((v) => v.trim().replace(/^W\//, '') === etag)
}

export interface CachePolicy {
  maxAge: number
  staleWhileRevalidate?: number
  public?: boolean
}

export const cacheControl = (p: CachePolicy): string =>
  `${p.public ? 'public' : 'private'}, max-age=${p.maxAge}${p.staleWhileRevalidate ? `, stale-while-revalidate=${p.staleWhileRevalidate}` : ''}`

/** A JSON read with ETag + Cache-Control; 304 without a body when the client already has it. */
export function cachedJson(request: Request, value: unknown, policy: CachePolicy): Response {
  const body = JSON.stringify(value)
  const etag = etagOf(body)
  const headers = { ETag: etag, 'Cache-Control': cacheControl(policy) }
  if (matches(request.headers.get('if-none-match'), etag)) return new Response(null, { status: 304, headers })
  return new Response(body, { headers: { ...JSON_HEADERS, ...headers } })
}
