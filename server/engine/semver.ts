// Semantic Versioning 2.0.0 parsing and precedence (semver.org §11), for the semver_* operators.
// A leading `v` is tolerated (`v1.2.3`), build metadata is parsed but ignored, and anything else that is
// not a full MAJOR.MINOR.PATCH version is invalid (the operators then do not match).
// Numeric identifiers are kept as digit strings and compared by length, then lexically: they have no
// leading zeros, so this is exact even beyond Number.MAX_SAFE_INTEGER.

export interface SemVer {
  readonly major: string
  readonly minor: string
  readonly patch: string
  /** Pre-release identifiers; empty for a release. */
  readonly prerelease: readonly string[]
}

// The official semver.org pattern, with an optional leading `v`.
// Spelled in its parts: a numeric identifier, and a pre-release identifier (numeric, or with a letter or `-`).
const NUMERIC_ID = String.raw`0|[1-9]\d*`
const PRERELEASE_ID = String.raw`${NUMERIC_ID}|\d*[a-zA-Z-][0-9a-zA-Z-]*`
const SEMVER = new RegExp(
  String.raw`^v?(${NUMERIC_ID})\.(${NUMERIC_ID})\.(${NUMERIC_ID})` +
    String.raw`(?:-((?:${PRERELEASE_ID})(?:\.(?:${PRERELEASE_ID}))*))?` +
    String.raw`(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`,
)
const NUMERIC = /^\d+$/
const MAX_LENGTH = 256

/** Parses a version; `undefined` when it is not valid SemVer 2.0. */
export function parseSemver(text: unknown): SemVer | undefined {
  if (typeof text !== 'string' || text.length > MAX_LENGTH) return undefined
  const m = SEMVER.exec(text)
  if (m === null) return undefined
  return { major: m[1]!, minor: m[2]!, patch: m[3]!, prerelease: m[4] === undefined ? [] : m[4].split('.') }
}

function compareNumeric(a: string, b: string): number {
  if (a.length !== b.length) return a.length < b.length ? -1 : 1
  return a < b ? -1 : a > b ? 1 : 0
}

function compareIdentifier(a: string, b: string): number {
  const an = NUMERIC.test(a)
  const bn = NUMERIC.test(b)
  if (an && bn) return compareNumeric(a, b)
  // Numeric identifiers always have lower precedence than alphanumeric ones.
  if (an) return -1
  if (bn) return 1
  return a < b ? -1 : a > b ? 1 : 0 // ASCII order
}

/** Precedence order: negative when a < b, 0 when equal in precedence, positive when a > b. */
export function compareSemver(a: SemVer, b: SemVer): number {
  const core = compareNumeric(a.major, b.major) || compareNumeric(a.minor, b.minor) || compareNumeric(a.patch, b.patch)
  if (core !== 0) return core
  const ap = a.prerelease
  const bp = b.prerelease
  // A release ranks above any of its pre-releases.
  if (ap.length === 0 || bp.length === 0) return bp.length - ap.length === 0 ? 0 : ap.length === 0 ? 1 : -1
  const n = Math.min(ap.length, bp.length)
  for (let i = 0; i < n; i++) {
    const c = compareIdentifier(ap[i]!, bp[i]!)
    if (c !== 0) return c
  }
  // A larger set of pre-release fields ranks higher when all before it are equal.
  return ap.length === bp.length ? 0 : ap.length < bp.length ? -1 : 1
}
