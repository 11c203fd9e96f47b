// Reads a Server-Sent Events body (the upstream's change stream) into events, as EventSource would.
export interface SseMessage {
  id?: string
  event: string
  data: string
}

/** `onBytes`: called for every chunk, comments (heartbeats) included: the stream is alive. */
export async function* readSse(body: ReadableStream<Uint8Array>, onBytes: () => void = () => {}): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder()
  let buffer = ''
  for await (const chunk of body) {
    onBytes()
    buffer += decoder.decode(chunk, { stream: true }).replace(/\r\n?/g, '\n')
    let cut: number
    while ((cut = buffer.indexOf('\n\n')) !== -1) {
      const block = buffer.slice(0, cut)
      buffer = buffer.slice(cut + 2)
      const message: SseMessage = { event: 'message', data: '' }
      let fields = 0
      for (const line of block.split('\n')) {
        if (line === '' || line.startsWith(':')) continue
        const colon = line.indexOf(':')
        const field = colon === -1 ? line : line.slice(0, colon)
        const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '')
        if (field === 'id') message.id = value
        else if (field === 'event') message.event = value
        else if (field === 'data') message.data = message.data ? `${message.data}\n${value}` : value
        else continue
        fields++
      }
      if (fields) yield message
    }
  }
}
