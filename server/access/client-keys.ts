// Client keys (docs/teams.md, "Client keys"): tokens with the `client` permission, made to live in public
// code (a web page, a mobile app). They may only evaluate, and only the routes below: everything else is
// 403 FORBIDDEN, whatever the route declares. This table is the one place that says which; access/authorize.ts
// consults it for every request a client key makes. Pure.

/** The routes a client key may call: method and path pattern. */
const CLIENT_ROUTES: readonly { method: string; path: RegExp }[] = [
  { method: 'GET', path: /^\/api\/v1\/flags\/[^/]+$/ }, // one flag's evaluation
  { method: 'GET', path: /^\/api\/v1\/configs\/[^/]+$/ }, // one config's value
  { method: 'POST', path: /^\/api\/v1\/evaluate$/ }, // bulk evaluation
  { method: 'POST', path: /^\/ofrep\/v1\/evaluate\/flags\/[^/]+$/ }, // OFREP single
  { method: 'POST', path: /^\/ofrep\/v1\/evaluate\/flags$/ }, // OFREP bulk
  { method: 'GET', path: /^\/ofrep\/v1\/stream$/ }, // OFREP change notifications
  { method: 'POST', path: /^\/api\/v1\/events$/ }, // experiment events (experiments.md)
]

export const CLIENT_PERMISSION = 'client'

/** Whether a token's permissions make it a client key. */
export const isClientKey = (permissions: readonly string[]): boolean => permissions.includes(CLIENT_PERMISSION)

/** Whether a client key may call `method` `path` (the URL's path, without the query). */
export const clientKeyMayCall = (method: string, path: string): boolean =>
  CLIENT_ROUTES.some((r) => r.method === method && r.path.test(path))

/** Whether a stored flag or config (its body) is visible to client keys: marked `client_side: true`. */
export const visibleToClientKeys = (body: Record<string, unknown>): boolean => body.client_side === true
