// Strong ETags (docs/behaviour.md §7) and Cache-Control for cacheable reads, with 304 on If-None-Match.
import { JSON_HEADERS } from './errors'
import type { RateVerdict } from './rate-limit'

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
  `${p.public ? 'public' : 'private'}, max-age=${p.maxAge}` +
  `${p.staleWhileRevalidate ? `, stale-while-revalidate=${p.staleWhileRevalidate}` : ''}`

export function etagMatches(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false
  if (ifNoneMatch === etag || ifNoneMatch.trim() === '*') return true
  return ifNoneMatch.split(',').some((v) => v.trim().replace(/^W\//, '') === etag)
}

/** An already serialised JSON body with its ETag; 304 without a body when the client has it. */
export function sendCached(request: Request, body: string, etag: string, cacheControlValue: string): Response {
  if (etagMatches(request.headers.get('if-none-match'), etag)) {
    return new Response(null, { status: 304, headers: { ETag: etag, 'Cache-Control': cacheControlValue } })
  }
  return new Response(body, { headers: { ...JSON_HEADERS, ETag: etag, 'Cache-Control': cacheControlValue } })
}

/** A JSON read with ETag + Cache-Control. */
export function cachedJson(request: Request, value: unknown, policy: CachePolicy): Response {
  const body = JSON.stringify(value)
  return sendCached(request, body, etagOf(body), cacheControl(policy))
}

/** Headers that carry X-RateLimit-*: set only when a value differs from what the object already holds,
 *  which for a busy token is Remaining alone. `new Response` copies the Headers it is given, so one object
 *  can be restamped for every request. */
export class RateStampedHeaders {
  private limit = -1
  private reset = -1
  constructor(readonly headers: Headers) {}

  stamp(v: RateVerdict): Headers {
    const h = this.headers
    if (v.limit !== this.limit) h.set('X-RateLimit-Limit', String((this.limit = v.limit)))
    h.set('X-RateLimit-Remaining', String(v.remaining))
    if (v.resetAt !== this.reset) h.set('X-RateLimit-Reset', String((this.reset = v.resetAt)))
    return h
  }
}

/** An evaluation answer ready to send: body, ETag and header sets built once per distinct body and reused.
 *  `new Response` copies the Headers it is given, so one object can be restamped for every request. */
export class PreparedResponse {
  readonly etag: string
  private ok: RateStampedHeaders
  private notModified: RateStampedHeaders

  constructor(
    readonly body: string,
    readonly cacheControl: string,
  ) {
    this.etag = etagOf(body)
    this.ok = new RateStampedHeaders(new Headers({ ...JSON_HEADERS, ETag: this.etag, 'Cache-Control': cacheControl }))
    this.notModified = new RateStampedHeaders(new Headers({ ETag: this.etag, 'Cache-Control': cacheControl }))
  }

  /** 200 or 304 without X-RateLimit-* (for Elysia routes, whose hook adds them). */
  send(request: Request): Response {
    return sendCached(request, this.body, this.etag, this.cacheControl)
  }

  /** 200 with the body, or 304 when `ifNoneMatch` names it; X-RateLimit-* from the verdict. */
  respond(ifNoneMatch: string | null, verdict: RateVerdict): Response {
    if (ifNoneMatch !== null && etagMatches(ifNoneMatch, this.etag))
      return new Response(null, { status: 304, headers: this.notModified.stamp(verdict) })
    return new Response(this.body, { headers: this.ok.stamp(verdict) })
  }
}

const prepared = new WeakMap<object, PreparedResponse>()

/** The prepared response of a frozen value, built once per value: the engine returns the same frozen result
 *  object for every context that takes the same path, so the hot path skips JSON.stringify and SHA-256
 *  after the first request. Unfrozen values are prepared every time (they could change). */
export function preparedFor(value: object, cacheControlValue: string): PreparedResponse {
  let r = prepared.get(value)
  if (r === undefined || r.cacheControl !== cacheControlValue) {
    r = new PreparedResponse(JSON.stringify(value), cacheControlValue)
    if (Object.isFrozen(value)) prepared.set(value, r)
  }
  return r
}
