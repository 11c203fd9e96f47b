// Stream tickets. A browser's EventSource cannot send headers, so a page opens a stream with `?ticket=`
// instead of its token. A ticket names the project and the token (by its hash; never the token itself),
// expires within minutes and is useless for anything but opening a stream. Its claims are encrypted and
// authenticated (AES-256-GCM) with a key every instance shares (server_keys), so one instance honours
// another's tickets and the ticket reveals nothing about the token (a readable hash could be matched
// against a leaked token, or tell two pages apart as the same token's).
import { createCipheriv, createDecipheriv, createHmac } from 'node:crypto'

/** Tickets are issued per window: the same token gets the same ticket for five minutes, valid for five to
 *  ten. So OFREP bulk answers that carry one keep their ETag (304s go on working) and a client holding
 *  an open stream is not told to reconnect on every answer. */
const WINDOW_MS = 5 * 60_000
const IV_BYTES = 12
const TAG_BYTES = 16

export interface TicketClaims {
  projectId: string
  tokenHash: string
  expiresAtMs: number
}

export class TicketSigner {
  private readonly encryptionKey: Buffer
  private readonly ivKey: Buffer

  constructor(key: string) {
    // Two keys of one secret, for two purposes.
    this.encryptionKey = createHmac('sha256', key).update('stream-ticket-encryption').digest()
    this.ivKey = createHmac('sha256', key).update('stream-ticket-iv').digest()
  }

  issue(projectId: string, tokenHash: string, now = Date.now()): { ticket: string; expiresAtMs: number } {
    const expiresAtMs = (Math.floor(now / WINDOW_MS) + 2) * WINDOW_MS
    const plain = Buffer.from(JSON.stringify([projectId, tokenHash, expiresAtMs]))
    // A synthetic IV (a MAC of the claims): the same claims give the same ticket within a window (see
    // WINDOW_MS), different claims never share an IV.
    const iv = createHmac('sha256', this.ivKey).update(plain).digest().subarray(0, IV_BYTES)
    const cipher = createCipheriv('aes-256-gcm', this.encryptionKey, iv)
    const sealed = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()])
    return { ticket: sealed.toString('base64url'), expiresAtMs }
  }

  /** The claims of a ticket this service issued and that has not expired; undefined for anything else. */
  verify(ticket: string, now = Date.now()): TicketClaims | undefined {
    if (ticket.length > 512 || !/^[A-Za-z0-9_-]+$/.test(ticket)) return undefined
    const sealed = Buffer.from(ticket, 'base64url')
    if (sealed.length <= IV_BYTES + TAG_BYTES) return undefined
    let claims: unknown
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.encryptionKey, sealed.subarray(0, IV_BYTES))
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES))
      const plain = Buffer.concat([decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)), decipher.final()])
      claims = JSON.parse(plain.toString('utf8'))
    } catch {
      return undefined
    }
    if (!Array.isArray(claims) || claims.length !== 3) return undefined
    const [projectId, tokenHash, expiresAtMs] = claims
    if (typeof projectId !== 'string' || typeof tokenHash !== 'string' || typeof expiresAtMs !== 'number') return undefined
    return expiresAtMs > now ? { projectId, tokenHash, expiresAtMs } : undefined
  }
}
