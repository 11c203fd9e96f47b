// One delivery attempt over HTTP: the URL and every resolved address checked (SSRF), the request pinned to
// a checked address, signed, bounded by one timeout from DNS lookup to the last byte read. The worker
// (worker.ts) decides what to send when and records the outcome.
//
// Connections go directly to the checked address (proxy: false): going through an HTTP(S)_PROXY would let
// the proxy resolve the name again and undo the pinning. Deployments that must egress through a proxy
// need a proxy-aware variant of this (and the proxy then owns the SSRF policy).
import { isIP } from 'node:net'
import type { DeliveryRow } from '../store/deliveries'
import type { WebhookRow } from '../store/webhooks'
import { checkResolvedAddresses, checkWebhookUrl, type Resolver } from './url-guard'
import { sign } from './signer'

export const USER_AGENT = 'flagship-webhooks/1.0'
/** How much of a receiver's response body is read (and kept in last_error). */
export const MAX_RESPONSE_BYTES = 4096

export type AttemptResult =
  | { ok: true; statusCode: number }
  | { ok: false; statusCode: number | null; error: string /** retrying cannot help */; permanent?: boolean }

export interface AttemptOptions {
  allowPrivate: boolean
  timeoutMs: number
  resolve?: Resolver
  /** extra TLS trust (tests with a self-signed receiver) */
  tls?: { ca?: string | string[] }
}

/** One HTTP attempt, bounded by the timeout from DNS lookup to the last byte read. */
export async function sendAttempt(hook: WebhookRow, row: DeliveryRow, opts: AttemptOptions): Promise<AttemptResult> {
  const { allowPrivate, timeoutMs } = opts
  const verdict = checkWebhookUrl(hook.url, { allowPrivate })
  if (!verdict.ok) return { ok: false, statusCode: null, error: `webhook URL rejected: ${verdict.reason}`, permanent: true }
  const url = new URL(hook.url)
  const signal = AbortSignal.timeout(timeoutMs)
  const timedOut = () => ({ ok: false as const, statusCode: null, error: `timed out after ${timeoutMs / 1000} s` })

  const resolved = await Promise.race([
    checkResolvedAddresses(url.hostname, { allowPrivate, resolve: opts.resolve }),
    new Promise<null>((resolve) => signal.addEventListener('abort', () => resolve(null), { once: true })),
  ])
  if (resolved === null) return timedOut()
  if (!resolved.ok) return { ok: false, statusCode: null, error: resolved.reason }

  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'User-Agent': USER_AGENT,
    'X-Webhook-Event': row.event,
    'X-Webhook-Delivery': row.id,
    'X-Webhook-Attempt': String(row.attempts),
    // The connection goes to the checked IP address; the Host header (and TLS SNI below) keep the name.
    Host: url.host,
  }
  if (hook.secret) headers['X-Webhook-Signature'] = sign(row.payload, hook.secret)
  const serverName = url.hostname.replace(/\.$/, '')

  let last: AttemptResult = { ok: false, statusCode: null, error: 'no address to connect to' }
  for (const address of resolved.addresses) {
    // Pinning: connect to exactly the address that was checked, so DNS rebinding between the check and
    // the connect cannot point the request elsewhere. For https, tls.serverName keeps SNI and certificate
    // verification on the URL's host name.
    const target = new URL(url)
    target.hostname = isIP(address) === 6 ? `[${address}]` : address
    try {
      const res = await fetch(target, {
        method: 'POST',
        body: row.payload,
        headers,
        redirect: 'manual',
        signal,
        keepalive: false,
        proxy: false,
        tls: url.protocol === 'https:' ? { ...(isIP(serverName) ? {} : { serverName }), ...(opts.tls ?? {}) } : undefined,
      } as RequestInit)
      if (res.status >= 200 && res.status < 300) {
        // Any 2xx is success; the body is not needed.
        res.body?.cancel().catch(() => undefined)
        return { ok: true, statusCode: res.status }
      }
      if (res.status >= 300 && res.status < 400) {
        res.body?.cancel().catch(() => undefined)
        const location = res.headers.get('location')
        return {
          ok: false,
          statusCode: res.status,
          error: `HTTP ${res.status}: redirects are not followed${location ? ` (Location: ${location.slice(0, 512)})` : ''}`,
        }
      }
      const body = await readBounded(res, MAX_RESPONSE_BYTES).catch(() => '(response body not read: timed out or aborted)')
      return { ok: false, statusCode: res.status, error: `HTTP ${res.status}${body ? `: ${body}` : ''}` }
    } catch (e) {
      if (signal.aborted) return timedOut()
      last = { ok: false, statusCode: null, error: sanitize(errorText(e), [target.href, hook.url]) }
      // Connection-level failure: the next address of the host may work.
    }
  }
  return last
}

/** Reads at most max bytes of the body (as text) and drops the rest. */
async function readBounded(res: Response, max: number): Promise<string> {
  if (!res.body) return ''
  const reader = res.body.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  try {
    while (total < max) {
      const { done, value } = await reader.read()
      if (done) break
      chunks.push(value)
      total += value.byteLength
    }
  } finally {
    reader.cancel().catch(() => undefined)
  }
  const all = new Uint8Array(Math.min(total, max))
  let at = 0
  for (const c of chunks) {
    const part = c.subarray(0, all.length - at)
    all.set(part, at)
    at += part.length
    if (at >= all.length) break
  }
  return new TextDecoder().decode(all).trim()
}

export function errorText(e: unknown): string {
  if (e instanceof Error) {
    const code = (e as { code?: string }).code
    return code && !e.message.includes(code) ? `${code}: ${e.message}` : e.message
  }
  return String(e)
}

/** Error messages from fetch quote the URL; the URL can carry a token in its path, so it is cut out. */
function sanitize(message: string, urls: string[]): string {
  let m = message
  for (const u of urls) m = m.split(u).join('<url>')
  return m
    .replace(/fetching "[^"]*"/g, 'fetching <url>')
    .replace(/\s*For more information, pass `verbose: true`[^.]*\.?/g, '')
    .slice(0, 1024)
}
