// Reading JSON that a client sent (request bodies and the URL-encoded `context`), refusing hostile input
// early and cheaply (docs/behaviour.md §8): over-long bodies are cut off while they are read, bytes that are
// not UTF-8 are refused rather than replaced, and nesting deeper than MAX_JSON_DEPTH is refused by a linear
// scan before JSON.parse, so a 100,000-deep document never reaches the parser, the schema validator or an
// error message that would stringify it.
import { AppError, validationError } from '../services/errors'

export const MAX_BODY_BYTES = 1024 * 1024
export const MAX_JSON_DEPTH = 64

const tooLarge = () => new AppError(413, 'PAYLOAD_TOO_LARGE', `Request body exceeds ${MAX_BODY_BYTES} bytes`)
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false })

/** Whether JSON text nests arrays/objects deeper than `max`. One pass over the characters, skipping strings
 *  (brackets inside them do not count); stops at the first level too deep. Malformed text is the parser's
 *  business: this only bounds what the parser will be given. */
export function nestsDeeperThan(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x22 /* " */) {
      for (i++; i < text.length; i++) {
        const s = text.charCodeAt(i)
        if (s === 0x5c /* \ */) i++
        else if (s === 0x22) break
      }
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > max) return true
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) {
      depth--
    }
  }
  return false
}

/** JSON.parse behind the depth bound; `where` names the input in the 400s (`body`, `context`). */
export function parseJsonText(text: string, where: 'body' | 'context'): unknown {
  if (nestsDeeperThan(text)) throw validationError([{ path: where, message: `nests deeper than ${MAX_JSON_DEPTH} levels` }])
  try {
    return JSON.parse(text)
  } catch (e) {
    if (where === 'context') throw validationError([{ path: 'context', message: 'must be URL-encoded JSON' }])
    throw new AppError(400, 'VALIDATION_ERROR', `Malformed JSON body: ${(e as Error).message}`, { issues: [{ path: '', message: 'malformed JSON' }] })
  }
}

/** 415 unless the media type is JSON and any `charset` is UTF-8. */
export function checkJsonMediaType(contentType: string | null): void {
  const [type = '', ...params] = (contentType ?? '').split(';')
  if (!/^\s*application\/(?:[\w.+-]+\+)?json\s*$/i.test(type)) {
    throw new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Request bodies must be sent as Content-Type: application/json')
  }
  for (const param of params) {
    const [name, value = ''] = param.split('=')
    if (name.trim().toLowerCase() !== 'charset') continue
    if (!/^"?utf-8"?$/i.test(value.trim())) throw new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Request bodies must be UTF-8 (charset=utf-8)')
  }
}

/** The body's bytes, at most MAX_BODY_BYTES: reading stops at the limit (413), whatever Content-Length
 *  says or does not say (chunked bodies). */
export async function readBodyBytes(request: Request): Promise<Uint8Array> {
  const declared = request.headers.get('content-length')
  if (declared !== null && Number(declared) > MAX_BODY_BYTES) throw tooLarge()
  if (!request.body) return new Uint8Array(0)
  const chunks: Uint8Array[] = []
  let size = 0
  const reader = request.body.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => {})
      throw tooLarge()
    }
    chunks.push(value)
  }
  if (chunks.length === 1) return chunks[0]
  const bytes = new Uint8Array(size)
  let at = 0
  for (const chunk of chunks) {
    bytes.set(chunk, at)
    at += chunk.byteLength
  }
  return bytes
}

/** A request's JSON body (undefined when empty): size, media type and charset, UTF-8, depth, syntax. */
export async function readJsonBody(request: Request): Promise<unknown> {
  const bytes = await readBodyBytes(request)
  if (bytes.byteLength === 0) return undefined
  checkJsonMediaType(request.headers.get('content-type'))
  let text: string
  try {
    text = utf8.decode(bytes)
  } catch {
    throw validationError([{ path: 'body', message: 'is not valid UTF-8' }])
  }
  return parseJsonText(text, 'body')
}
