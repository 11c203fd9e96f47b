// Stream tickets. A browser's EventSource cannot send headers, so a page opens a stream with `?ticket=`
// instead of its token. A ticket names the project and the token (by its hash; never the token itself),
// expires within minutes and is useless for anything but opening a stream. It is signed (HMAC-SHA256) with
// a key every instance shares (server_keys), so one instance honours another's tickets.
import { createHmac, timingSafeEqual } from 'node:crypto'

/** Tickets are issued per window: the same token gets the same ticket for five minutes, valid for five to
 *  ten. So OFREP bulk answers that carry one keep their ETag (304s go on working) and a client holding
 *  an open stream is not told to reconnect on every answer. */
const WINDOW_MS = 5 * 60_000

export interface TicketClaims {
  projectId: string
  tokenHash: string
  expiresAtMs: number
}

const b64 = (data: string | Buffer) => Buffer.from(data).toString('base64url')

export class TicketSigner {
  constructor(private readonly key: string) {}

  private sign(payload: string): string {
    return createHmac('sha256', this.key).update(payload).digest('base64url')
  }

  issue(projectId: string, tokenHash: string, now = Date.now()): { ticket: string; expiresAtMs: number } {
    const expiresAtMs = (Math.floor(now / WINDOW_MS) + 2) * WINDOW_MS
    const payload = b64(JSON.stringify([projectId, tokenHash, expiresAtMs]))
    return { ticket: `${payload}.${this.sign(payload)}`, expiresAtMs }
  }

  /** The claims of a ticket this service signed and that has not expired; undefined for anything else. */
  verify(ticket: string, now = Date.now()): TicketClaims | undefined {
    if (ticket.length > 512) return undefined
    const dot = ticket.indexOf('.')
    if (dot < 1) return undefined
    const payload = ticket.slice(0, dot)
    const given = Buffer.from(ticket.slice(dot + 1), 'base64url')
    const expected = Buffer.from(this.sign(payload), 'base64url')
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined
    let claims: unknown
    try {
      claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'))
    } catch {
      return undefined
    }
    if (!Array.isArray(claims) || claims.length !== 3) return undefined
    const [projectId, tokenHash, expiresAtMs] = claims
    if (typeof projectId !== 'string' || typeof tokenHash !== 'string' || typeof expiresAtMs !== 'number') return undefined
    return expiresAtMs > now ? { projectId, tokenHash, expiresAtMs } : undefined
  }
}
