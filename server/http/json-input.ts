// Reading JSON that a client sent (request bodies and the URL-encoded `context`), refusing hostile input
// early and cheaply (docs/behaviour.md §8): over-long bodies are cut off while they are read, bytes that are
// not UTF-8 are refused rather than replaced, and one linear scan before JSON.parse (documents/json-text.ts) refuses
// nesting deeper than MAX_JSON_DEPTH and strings that no store can keep (`\u0000`, unpaired surrogates).
import { AppError, validationError } from '../errors'
import { describeUnit, locateBadText, MAX_JSON_DEPTH, scanJsonText } from '../documents/json-text'

export { MAX_JSON_DEPTH } from '../documents/json-text'
export const MAX_BODY_BYTES = 1024 * 1024
/** Importing a document (docs/as-code.md) takes larger bodies: 10 MiB holds 10,000 flags. */
export const MAX_IMPORT_BYTES = 10 * 1024 * 1024
export const IMPORT_PATH = '/api/v1/import'
/** The body limit of a path. */
export const bodyLimitOf = (path: string): number => (path === IMPORT_PATH ? MAX_IMPORT_BYTES : MAX_BODY_BYTES)

const tooLarge = (max = MAX_BODY_BYTES) => new AppError(413, 'PAYLOAD_TOO_LARGE', `Request body exceeds ${max} bytes`)
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false })

/** JSON.parse behind the scan; `where` names the input in the 400s (`body`, `context`). */
export function parseJsonText(text: string, where: 'body' | 'context'): unknown {
  const problem = scanJsonText(text)
  if (problem?.kind === 'depth') throw validationError([{ path: where, message: `nests deeper than ${MAX_JSON_DEPTH} levels` }])
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (e) {
    if (where === 'context') throw validationError([{ path: 'context', message: 'must be URL-encoded JSON' }])
    throw new AppError(400, 'VALIDATION_ERROR', `Malformed JSON body: ${(e as Error).message}`, {
      issues: [{ path: '', message: 'malformed JSON' }],
    })
  }
  if (problem) {
    // The scan found it cheaply; the parsed value (only on this refused path) says in which field.
    const issue = locateBadText(value, where === 'body' ? '' : where)
    throw validationError([
      issue
        ? { path: issue.path || where, message: issue.message }
        : { path: where, message: `contains ${describeUnit(problem.unit)} at position ${problem.at}, which is not allowed in text` },
    ])
  }
  return value
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
    if (!/^"?utf-8"?$/i.test(value.trim()))
      throw new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Request bodies must be UTF-8 (charset=utf-8)')
  }
}

/** The body's bytes, at most MAX_BODY_BYTES: reading stops at the limit (413), whatever Content-Length
 *  says or does not say (chunked bodies). */
export async function readBodyBytes(request: Request, max = MAX_BODY_BYTES): Promise<Uint8Array> {
  const declared = request.headers.get('content-length')
  if (declared !== null && Number(declared) > max) throw tooLarge(max)
  if (!request.body) return new Uint8Array(0)
  const chunks: Uint8Array[] = []
  let size = 0
  const reader = request.body.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > max) {
      await reader.cancel().catch(() => {})
      throw tooLarge(max)
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

/** A body's bytes as text: UTF-8, refused (400), not replaced, when invalid. */
export function decodeBody(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes)
  } catch {
    throw validationError([{ path: 'body', message: 'is not valid UTF-8' }])
  }
}

/** A request's JSON body (undefined when empty): size, media type and charset, UTF-8, depth, syntax. */
export async function readJsonBody(request: Request): Promise<unknown> {
  const bytes = await readBodyBytes(request)
  if (bytes.byteLength === 0) return undefined
  checkJsonMediaType(request.headers.get('content-type'))
  return parseJsonText(decodeBody(bytes), 'body')
}

/** A document body (POST /api/v1/import): YAML or JSON text, at most MAX_IMPORT_BYTES, UTF-8. The
 *  document parser (server/documents/parse.ts) reads it; the format comes from the media type. */
export async function readDocumentBody(request: Request): Promise<{ text: string; format: 'yaml' | 'json' } | undefined> {
  const bytes = await readBodyBytes(request, MAX_IMPORT_BYTES)
  if (bytes.byteLength === 0) return undefined
  const [type = ''] = (request.headers.get('content-type') ?? '').split(';')
  const media = type.trim().toLowerCase()
  const format = /^application\/(?:[\w.+-]+\+)?json$/.test(media)
    ? 'json'
    : /^(?:application|text)\/(?:x-)?yaml$/.test(media)
      ? 'yaml'
      : undefined
  if (!format) throw new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send the document as Content-Type: application/yaml or application/json')
  return { text: decodeBody(bytes), format }
}
