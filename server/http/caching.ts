// Strong ETags (decisions.md §7) and Cache-Control for cacheable reads, with 304 on If-None-Match.
import { JSON_HEADERS } from './errors'

export interface CachePolicy {
  maxAge: number
  staleWhileRevalidate?: number
  public?: boolean
}

/** `"` + base64url of the first 16 bytes of SHA-256(body) + `"`. */
export function etagOf(body: string): string {
  const digest = Bun.SHA256.hash(body) as Uint8Array
  return `"${Buffer.from(digest.buffer, digest.byteOffset, 16).toString('base64url')}"`
}

export const cacheControl = (p: CachePolicy): string =>
  `${p.public ? 'public' : 'private'}, max-age=${p.maxAge}${p.staleWhileRevalidate ? `, stale-while-revalidate=${p.staleWhileRevalidate}` : ''}`

function matches(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false
  if (ifNoneMatch === etag || ifNoneMatch.trim() === '*') return true
  return ifNoneMatch.split(',').some((v) => v.trim().replace(/^W\//, '') === etag)
}

/** An already serialised JSON body with its ETag; 304 without a body when the client has it. */
export function sendCached(request: Request, body: string, etag: string, cacheControlValue: string): Response {
  if (matches(request.headers.get('if-none-match'), etag)) {
    return new Response(null, { status: 304, headers: { ETag: etag, 'Cache-Control': cacheControlValue } })
  }
  return new Response(body, { headers: { ...JSON_HEADERS, ETag: etag, 'Cache-Control': cacheControlValue } })
}

/** A JSON read with ETag + Cache-Control. */
export function cachedJson(request: Request, value: unknown, policy: CachePolicy): Response {
  const body = JSON.stringify(value)
  return sendCached(request, body, etagOf(body), cacheControl(policy))
}

const rendered = new WeakMap<object, { body: string; etag: string }>()

/** Serialised body + ETag of a frozen value, computed once per value. The engine returns the same frozen
 *  result object for every context that takes the same path, so the hot path skips JSON.stringify and
 *  SHA-256 after the first request. Unfrozen values are rendered every time (they could change). */
export function renderFrozen(value: object): { body: string; etag: string } {
  let r = rendered.get(value)
  if (!r) {
    const body = JSON.stringify(value)
    r = { body, etag: etagOf(body) }
    if (Object.isFrozen(value)) rendered.set(value, r)
  }
  return r
}
