// Shared name rules (docs/behaviour.md §2) and If-Match parsing.
import { KEY_PATTERN } from '../engine/names'
import { validationError, versionConflict, invalid } from '../errors'

export { KEY_PATTERN, ENV_PATTERN } from '../engine/names'

/** Display names (projects, tokens): 1 to 200 characters, none of them a control character. */
const DISPLAY_NAME = /^[^\u0000-\u001f\u007f]{1,200}$/
export const displayNameIssue = (name: unknown, path = 'name'): { path: string; message: string } | undefined =>
  typeof name === 'string' && DISPLAY_NAME.test(name)
    ? undefined
    : { path, message: 'must be 1 to 200 characters, without control characters' }

export function checkKey(key: unknown, path = 'key'): string {
  if (typeof key !== 'string' || !KEY_PATTERN.test(key)) {
    throw validationError([{ path, message: 'must match ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$' }])
  }
  return key
}

/** `If-Match: "3"` (or W/"3", or 3) -> 3; absent or `*` -> undefined, meaning "apply unconditionally". */
export function parseIfMatch(header: string | null | undefined): number | undefined {
  if (header === undefined || header === null || header.trim() === '' || header.trim() === '*') return undefined
  const m = /^(?:W\/)?(?:"(\d{1,15})"|(\d{1,15}))$/.exec(header.trim())
  if (!m)
    throw invalid('VALIDATION_ERROR', 'If-Match must be the resource version in double quotes, e.g. "3"', {
      issues: [{ path: 'If-Match', message: 'must be a quoted integer version' }],
    })
  return Number(m[1] ?? m[2])
}

/** Refuses a change made against another version than the stored one (409 CONFLICT); no If-Match: no check. */
export function checkIfMatch(ifMatch: number | undefined, currentVersion: number): void {
  if (ifMatch !== undefined && ifMatch !== currentVersion) throw versionConflict(currentVersion)
}
