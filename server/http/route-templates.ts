// The route template a request path belongs to (`/api/v1/flags/:key` for `/api/v1/flags/new-checkout`), for
// metrics labels. Built once from the app's own route table, so a label is always one of the app's
// templates, never text from the request: a scanner trying random paths cannot create new label values.
// Methods are not part of the match (a PUT to a GET-only path is that path's template, answered 405), and
// the precedence is the router's: a literal segment before a `:param`, a `:param` before a `*`.

interface Node {
  literal: Map<string, Node>
  param?: Node
  /** the template of a `*` route ending here (it matches any rest of the path) */
  wildcard?: string
  /** the template of a route ending exactly here */
  template?: string
}

const node = (): Node => ({ literal: new Map() })

function insert(root: Node, template: string): void {
  let at = root
  const segments = template.split('/').slice(1)
  for (const [i, segment] of segments.entries()) {
    if (segment === '*' && i === segments.length - 1) {
      at.wildcard ??= template
      return
    }
    if (segment.startsWith(':')) at = at.param ??= node()
    else {
      let next = at.literal.get(segment)
      if (next === undefined) at.literal.set(segment, (next = node()))
      at = next
    }
  }
  at.template ??= template
}

function match(at: Node, segments: string[], i: number): string | undefined {
  if (i === segments.length) return at.template ?? at.wildcard
  const segment = segments[i]!
  const literal = at.literal.get(segment)
  if (literal !== undefined) {
    const found = match(literal, segments, i + 1)
    if (found !== undefined) return found
  }
  // A parameter never matches an empty segment (`/api/v1/flags/` is not a flag).
  if (at.param !== undefined && segment !== '') {
    const found = match(at.param, segments, i + 1)
    if (found !== undefined) return found
  }
  return at.wildcard
}

/** A resolver over `paths` (route templates as registered): the template a request path matches, or
 *  undefined when none does. */
export function routeTemplates(paths: Iterable<string>): (path: string) => string | undefined {
  const root = node()
  for (const path of paths) if (path.startsWith('/')) insert(root, path)
  // split('/') of '/a/b' is ['', 'a', 'b']: matching starts at index 1.
  return (path) => (path.startsWith('/') ? match(root, path.split('/'), 1) : undefined)
}
