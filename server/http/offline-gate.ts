// Offline mode's one gate (docs/as-code.md, "Offline mode"): while FLAGS_FILE serves a project's flags,
// configs and segments, every request that would write them there is refused with 405 READ_ONLY, whoever
// sends it (token, personal token or session). Whether a request writes them is read from its route's own
// declaration, not from a list of paths: a method other than GET with a declared write permission
// (`write:flags`, `write:configs`), or `x-writes-documents` on routes that check their permissions in the
// handler (import, promote, applying a change request). The query is the one the framework decoded for the
// route (`?%6Dode=apply` is `mode=apply` here as it is to the handler).
import { AppError } from '../errors'

/** `always`, or `unless-plan`: unless the `mode` query parameter is `plan` or absent (the import). */
export type DocumentWrites = 'always' | 'unless-plan'

const WRITE_PERMISSIONS = new Set<unknown>(['write:flags', 'write:configs'])
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/** Marks a route's options (guard()'s) as writing flags, configs or segments beyond what its permission says. */
export const writingDocuments = <T extends { detail: object }>(options: T, when: DocumentWrites = 'always'): T => ({
  ...options,
  detail: { ...options.detail, 'x-writes-documents': when },
})

/** Whether this request, on a route declared by `detail`, writes flags, configs or segments. */
export function writesDocuments(
  method: string,
  detail: Record<string, unknown> | undefined,
  query: Record<string, unknown> | undefined,
): boolean {
  if (READ_METHODS.has(method)) return false
  const declared = detail?.['x-writes-documents']
  if (declared === 'always') return true
  if (declared === 'unless-plan') return (query?.mode ?? 'plan') !== 'plan'
  return WRITE_PERMISSIONS.has(detail?.['x-permission'])
}

export interface OfflineGateDeps {
  /** the project served from FLAGS_FILE (undefined: offline mode is off) */
  offlineProject: string | undefined
  /** the project a request acts on: the token's, or for a session the one its Flagship-Project header names */
  projectOf(request: Request): string | undefined
  /** the declaration (OpenAPI detail) of the route matched for `method` and its template */
  detailOf(method: string, route: string): Record<string, unknown> | undefined
}

/** Throws 405 READ_ONLY when the request would write the offline project's documents. */
export function checkOffline(deps: OfflineGateDeps, request: Request, route: string, query: Record<string, unknown> | undefined): void {
  if (deps.offlineProject === undefined) return
  if (!writesDocuments(request.method, deps.detailOf(request.method, route), query)) return
  if (deps.projectOf(request) !== deps.offlineProject) return
  throw new AppError(
    405,
    'READ_ONLY',
    'Flags, configs and segments of this project are served read-only from FLAGS_FILE; change the file instead',
  )
}
