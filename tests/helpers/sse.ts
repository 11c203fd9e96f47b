// A Server-Sent Events reader for tests: opens a stream with fetch, parses events as they arrive, and
// waits for the ones a test expects.
export interface SseEvent {
  id?: string
  event: string
  data: any
}

export interface SseStream {
  status: number
  headers: Headers
  /** every event so far (comments are counted in `comments`) */
  events: SseEvent[]
  comments: number
  /** resolves when the server ends the stream */
  ended: Promise<void>
  isEnded(): boolean
  /** the next event (after those already taken) that satisfies `match`, within `timeoutMs` */
  next(match?: (e: SseEvent) => boolean, timeoutMs?: number): Promise<SseEvent>
  close(): void
}

export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
  const abort = new AbortController()
  const res = await fetch(url, { headers, signal: abort.signal })
  const events: SseEvent[] = []
  let comments = 0
  let taken = 0
  let ended = false
  let wake: () => void = () => {}
  const ping = () => wake()
  const endedPromise = (async () => {
    if (!res.body || res.status !== 200) return
    const decoder = new TextDecoder()
    let buffer = ''
    try {
      for await (const chunk of res.body) {
        buffer += decoder.decode(chunk, { stream: true })
        let cut: number
        while ((cut = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, cut)
          buffer = buffer.slice(cut + 2)
          const e: SseEvent = { event: 'message', data: undefined }
          let isComment = true
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) continue
            const colon = line.indexOf(':')
            const field = colon === -1 ? line : line.slice(0, colon)
            const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '')
            if (field === 'id') e.id = value
            else if (field === 'event') e.event = value
            else if (field === 'data') e.data = JSON.parse(value)
            else if (field === 'retry') continue
            isComment = false
          }
          if (isComment) comments++
          else if (e.data !== undefined || e.id !== undefined) events.push(e)
          ping()
        }
      }
    } catch {
      // aborted by close(), or the connection dropped
    }
    ended = true
    ping()
  })()
  return {
    status: res.status,
    headers: res.headers,
    events,
    get comments() {
      return comments
    },
    ended: endedPromise,
    isEnded: () => ended,
    async next(match = () => true, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        while (taken < events.length) {
          const e = events[taken++]!
          if (match(e)) return e
        }
        if (ended) throw new Error(`stream ended; events: ${JSON.stringify(events)}`)
        const left = deadline - Date.now()
        if (left <= 0) throw new Error(`no matching event within ${timeoutMs} ms; events: ${JSON.stringify(events)}`)
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left)
          wake = () => {
            clearTimeout(timer)
            resolve()
          }
        })
      }
    },
    close: () => abort.abort(),
  } as SseStream
}

/** The status of opening a stream (and its JSON error body when refused), without waiting for it to end. */
export async function streamStatus(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const abort = new AbortController()
  const res = await fetch(url, { headers, signal: abort.signal })
  if (res.status === 200) {
    abort.abort()
    return { status: 200, body: undefined }
  }
  return { status: res.status, body: await res.json() }
}
