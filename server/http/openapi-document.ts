// Finishing touches on the generated OpenAPI document before it is served (app.ts), for what the route
// schemas cannot say on their own:
// - descriptions are CommonMark, so a placeholder such as `ff_<project>_<random>` or `rule-<n>` outside a
//   code span reads as an HTML tag and disappears on /docs; every such word is put in a code span.
// - X-API-Key (OpenFeature's OFREP convention) is a second way to send the token on the evaluation surfaces
//   only (flag and config evaluation, POST /evaluate, OFREP, the change streams); those operations declare it.
// - `servers` names the address clients reach the service at: PUBLIC_URL, else the request's own origin.

/** The operations that accept the token as X-API-Key: OpenAPI path and method. */
export function acceptsApiKey(path: string, method: string): boolean {
  if (path.startsWith('/ofrep/')) return true
  if (method === 'get' && (path === '/api/v1/flags/{key}' || path === '/api/v1/configs/{key}' || path === '/api/v1/stream')) return true
  return method === 'post' && path === '/api/v1/evaluate'
}

export const API_KEY_SCHEME = {
  type: 'apiKey',
  in: 'header',
  name: 'X-API-Key',
  description: 'The same access token as for `bearer` (`ff_{project}_{random}`), in the header OFREP clients use; evaluation routes only',
}

// A word holding a `<placeholder>`: letters, digits and `_-.:/{}` around it, not already in a code span.
const PLACEHOLDER_WORD = /[\w\-.:/{}]*<[a-z][\w-]*>[\w\-.:/{}<>]*/gi

/** `text` with every word holding a `<placeholder>` outside backticks put in a code span. */
export function codeSpanPlaceholders(text: string): string {
  // Odd-numbered parts of a split on backticks are inside code spans: left as they are.
  return text
    .split('`')
    .map((part, i) => (i % 2 === 1 ? part : part.replace(PLACEHOLDER_WORD, (word) => `\`${word}\``)))
    .join('`')
}

function visitDescriptions(value: unknown): void {
  if (Array.isArray(value)) return value.forEach(visitDescriptions)
  if (value === null || typeof value !== 'object') return
  const node = value as Record<string, unknown>
  for (const [k, v] of Object.entries(node)) {
    if ((k === 'description' || k === 'summary') && typeof v === 'string') node[k] = codeSpanPlaceholders(v)
    else visitDescriptions(v)
  }
}

type Operation = { security?: Record<string, string[]>[] }
type Doc = {
  paths?: Record<string, Record<string, Operation>>
  components?: { securitySchemes?: Record<string, unknown> }
  servers?: { url: string; description?: string }[]
}

/** Applies the touches above to `doc` in place. `base` is the service's public address. */
export function finishOpenApi(doc: Doc, base: string): void {
  visitDescriptions(doc)
  doc.components ??= {}
  doc.components.securitySchemes = { ...doc.components.securitySchemes, apiKey: API_KEY_SCHEME }
  for (const [path, operations] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(operations)) {
      if (!acceptsApiKey(path, method) || !Array.isArray(op.security)) continue
      if (!op.security.some((s) => 'apiKey' in s)) op.security = [...op.security, { apiKey: [] }]
    }
  }
  doc.servers = [{ url: base, description: 'this Flagship service (PUBLIC_URL, else the address this document was fetched from)' }]
}
