// The floor's handler (the least any evaluation answer must do under the spec, and nothing else): read the
// Authorization header (against a one-entry map) and the URL, and send the six headers an evaluation
// response carries (Content-Type, ETag, Cache-Control, X-RateLimit-*), Remaining changing per request.
// Served by bare-server.ts (BENCH_FLOOR=1) and by floor-beside.ts.

export function floorHandler(body: string, token: string): (request: Request) => Response {
  const headers = { 'content-type': 'application/json; charset=utf-8' }
  const evaluationHeaders = new Headers({
    ...headers,
    ETag: '"MJoe7nrkh5Up7G_j0enbpg"',
    'Cache-Control': 'private, max-age=10',
    'X-RateLimit-Limit': '1000000000',
    'X-RateLimit-Remaining': '1000000000',
    'X-RateLimit-Reset': String(Date.now() + 60_000),
  })
  const known = new Map([[`Bearer ${token}`, true]])
  let remaining = 1e9
  return (request) => {
    if (known.get(request.headers.get('authorization') ?? '') === undefined)
      return new Response('{"code":"UNAUTHORIZED"}', { status: 401, headers })
    if (!request.url.includes('context=')) return new Response('{"code":"VALIDATION_ERROR"}', { status: 400, headers })
    evaluationHeaders.set('X-RateLimit-Remaining', String(--remaining))
    return new Response(body, { headers: evaluationHeaders })
  }
}
