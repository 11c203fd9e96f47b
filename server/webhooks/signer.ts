// Webhook signatures: X-Webhook-Signature is the hex HMAC-SHA256 of the raw request body keyed with the
// webhook's secret (docs/webhooks.md). Receivers recompute it over the bytes they received.
import { createHmac, timingSafeEqual } from 'node:crypto'

export function sign(body: string, secret: string): string {
  return createHmac('sha256', secret).update(body, 'utf8').digest('hex')
}

/** Constant-time check of a received signature (used by tests and as the reference for receivers). */
export function verify(body: string, secret: string, signature: string): boolean {
  const expected = Buffer.from(sign(body, secret), 'hex')
  const given = /^[0-9a-f]{64}$/i.test(signature) ? Buffer.from(signature, 'hex') : Buffer.alloc(0)
  return given.length === expected.length && timingSafeEqual(given, expected)
}
