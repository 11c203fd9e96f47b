// Server-Sent Events framing and one subscriber's connection. An event is encoded once and the same bytes
// are queued to every subscriber; a subscriber whose queue grows past its bound (a reader slower than the
// changes) is dropped, and resumes from where it was with Last-Event-ID, so memory stays bounded.
const encoder = new TextEncoder()

/** One SSE event; `id` sets the client's Last-Event-ID, `event` names it (absent: a plain "message"). */
export function sseEvent(fields: { id?: number; event?: string; data: unknown }): Uint8Array {
  let text = ''
  if (fields.id !== undefined) text += `id: ${fields.id}\n`
  if (fields.event !== undefined) text += `event: ${fields.event}\n`
  // JSON.stringify never emits a raw newline, so the data is one line.
  text += `data: ${JSON.stringify(fields.data)}\n\n`
  return encoder.encode(text)
}

export const HEARTBEAT = encoder.encode(': heartbeat\n\n')
/** Sent first: tells EventSource to wait a second before reconnecting (its default is browser-specific). */
export const PREAMBLE = encoder.encode('retry: 1000\n\n')

/** Bytes a subscriber may have queued and unsent before it is dropped (about 1,500 change events). */
export const MAX_QUEUED_BYTES = 256 * 1024

export type StreamKind = 'native' | 'ofrep'

export class Subscriber {
  private controller!: ReadableStreamDefaultController<Uint8Array>
  private closed = false
  readonly response: Response
  /** opened with a relay key: also gets the relay-only events (ChangeHub.toRelays) */
  feedsRelay = false

  constructor(
    readonly projectId: string,
    /** the token the stream was opened with (by hash), checked again while the stream is open */
    readonly tokenHash: string,
    readonly kind: StreamKind,
    /** may this subscriber see changes of this resource type in this environment ('' for none) */
    readonly sees: (resourceType: string, environment: string) => boolean,
    headers: Record<string, string>,
    private readonly onClose: (s: Subscriber) => void,
  ) {
    const stream = new ReadableStream<Uint8Array>(
      {
        start: (c) => void (this.controller = c),
        cancel: () => {
          this.closed = true
          this.onClose(this)
        },
      },
      // Counted in bytes with no allowance: desiredSize is minus what is queued and not yet sent.
      { highWaterMark: 0, size: (chunk) => chunk?.byteLength ?? 0 },
    )
    this.response = new Response(stream, { headers })
  }

  get isClosed(): boolean {
    return this.closed
  }

  /** Queues bytes; false (and the subscriber closed) when it was closed or its queue is over the bound. */
  send(bytes: Uint8Array): boolean {
    if (this.closed) return false
    if ((this.controller.desiredSize ?? 0) < -MAX_QUEUED_BYTES) {
      this.close(false)
      return false
    }
    try {
      this.controller.enqueue(bytes)
      return true
    } catch {
      this.close(false)
      return false
    }
  }

  /** Ends the response: gracefully after what is queued (the client's EventSource reconnects, and gets a
   *  401 if its token is gone), or at once, discarding the queue, for a reader too slow to keep. */
  close(graceful = true): void {
    if (this.closed) return
    this.closed = true
    try {
      if (graceful) this.controller.close()
      else this.controller.error(new Error('subscriber too slow'))
    } catch {
      // already closed by the client
    }
    this.onClose(this)
  }
}
