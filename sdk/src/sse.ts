// A Server-Sent Events reader over a fetch response body. fetch (unlike EventSource) can send the
// Authorization header, in Node, Bun and browsers alike, so the SDK needs no stream ticket; reconnection
// is the client's own (sync.ts), with backoff.

export interface SseEvent {
  /** the `event:` field; `message` when absent */
  event: string
  data: string
  id: string | undefined
}

/** Reads events until the stream ends (resolves) or fails (rejects). `onActivity` runs on every chunk,
 *  heartbeat comments included, so a caller can tell a silent connection from a quiet one. */
export async function readEvents(body: ReadableStream<Uint8Array>, onEvent: (e: SseEvent) => void, onActivity: () => void): Promise<void> {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  let event = ''
  let data: string[] = []
  let id: string | undefined
  const line = (text: string): void => {
    if (text === '') {
      // A blank line dispatches the event gathered so far (one without data is dropped, as the spec says).
      if (data.length > 0) onEvent({ event: event || 'message', data: data.join('\n'), id })
      event = ''
      data = []
      return
    }
    if (text.startsWith(':')) return // a comment: the heartbeat
    const colon = text.indexOf(':')
    const field = colon === -1 ? text : text.slice(0, colon)
    let value = colon === -1 ? '' : text.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    if (field === 'event') event = value
    else if (field === 'data') data.push(value)
    else if (field === 'id') id = value
  }
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return
      onActivity()
      buffer += decoder.decode(value, { stream: true })
      // Lines end with \n, \r\n or \r; a trailing \r may be the first half of \r\n, so it waits.
      let start = 0
      for (let i = 0; i < buffer.length; i++) {
        const c = buffer.charCodeAt(i)
        if (c !== 10 && c !== 13) continue
        if (c === 13 && i === buffer.length - 1) break
        line(buffer.slice(start, i))
        if (c === 13 && buffer.charCodeAt(i + 1) === 10) i++
        start = i + 1
      }
      buffer = buffer.slice(start)
    }
  } finally {
    reader.releaseLock()
  }
}
