// What JSON text a client sends may hold before it is parsed (docs/behaviour.md §8), checked in one linear
// pass over the characters: nesting depth (a 100,000-deep document never reaches the parser, the schema
// validator or an error message that would stringify it), and strings, keys included, that are not text
// every store can keep. JSON's escapes can spell `\u0000` (PostgreSQL's jsonb and text refuse NUL) and
// unpaired UTF-16 surrogates such as `\ud800` (not Unicode; PostgreSQL refuses them, SQLite would store
// bytes no UTF-8 reader accepts). Both are refused on every store, so behaviour does not depend on it.
// Pure: no I/O, no imports; in documents/ (below http/), since both the request readers (http/json-input.ts)
// and the document parser (documents/parse.ts) scan with it.

export const MAX_JSON_DEPTH = 64

/** The first problem in the text: too deep (which wins, wherever it is), or the first string holding an
 *  unstorable code unit (`unit`: 0 for NUL, else the lone surrogate) at character offset `at`. */
export type JsonTextProblem = { kind: 'depth' } | { kind: 'unit'; unit: number; at: number }

const DEPTH: JsonTextProblem = Object.freeze({ kind: 'depth' })

const isHigh = (u: number) => (u & 0xfc00) === 0xd800
const isLow = (u: number) => (u & 0xfc00) === 0xdc00

/** The value of the 4 hex digits at `at`, or -1 (malformed escapes are the parser's business). */
function hex4(text: string, at: number): number {
  let v = 0
  for (let k = at; k < at + 4; k++) {
    const c = text.charCodeAt(k)
    const d = c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : c >= 0x41 && c <= 0x46 ? c - 0x37 : -1
    if (d < 0) return -1
    v = v * 16 + d
  }
  return v
}

/**
 * One pass over JSON text, skipping what is inside strings for the depth count (brackets in strings do not
 * count) and reading each string's code units, raw or escaped, for NUL and unpaired surrogates. Stops at
 * the first level too deep; a bad string is remembered and the scan goes on, so depth is always checked in
 * full. Malformed text is the parser's business: this only bounds what the parser will be given.
 */
export function scanJsonText(text: string, maxDepth = MAX_JSON_DEPTH): JsonTextProblem | undefined {
  let depth = 0
  let found: JsonTextProblem | undefined
  const n = text.length
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x22 /* " */) {
      // `pending`: offset of a high surrogate still waiting for its low half, else -1.
      let pending = -1
      for (i++; i < n; i++) {
        let u = text.charCodeAt(i)
        if (u === 0x22) break
        const at = i
        if (u === 0x5c /* \ */) {
          i++
          if (text.charCodeAt(i) === 0x75 /* u */) {
            u = hex4(text, i + 1)
            i += 4
          } else u = 0x5c // \" \\ \n …: an ordinary character
        } else if (u !== 0 && u < 0xd800 && pending === -1) continue // the common case
        if (pending !== -1) {
          if (isLow(u)) {
            pending = -1
            continue
          }
          found ??= {
            kind: 'unit',
            unit: text.charCodeAt(pending) === 0x5c ? hex4(text, pending + 2) : text.charCodeAt(pending),
            at: pending,
          }
          pending = -1
        }
        if (u === 0) found ??= { kind: 'unit', unit: 0, at }
        else if (isHigh(u)) pending = at
        else if (isLow(u)) found ??= { kind: 'unit', unit: u, at }
      }
      if (pending !== -1)
        found ??= {
          kind: 'unit',
          unit: text.charCodeAt(pending) === 0x5c ? hex4(text, pending + 2) : text.charCodeAt(pending),
          at: pending,
        }
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > maxDepth) return DEPTH
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) {
      depth--
    }
  }
  return found
}

/** The first unstorable code unit of a string (0 for NUL, or a lone surrogate), or undefined. */
export function badUnitOf(s: string): number | undefined {
  for (let i = 0; i < s.length; i++) {
    const u = s.charCodeAt(i)
    if (u === 0) return 0
    if (isHigh(u)) {
      if (isLow(s.charCodeAt(i + 1))) i++
      else return u
    } else if (isLow(u)) return u
  }
  return undefined
}

/** How a message names the code unit: `\u0000 (NUL)`, `\ud800 (an unpaired surrogate)`. */
export function describeUnit(unit: number): string {
  const escaped = `\\u${unit.toString(16).padStart(4, '0')}`
  return unit === 0 ? `${escaped} (NUL)` : `${escaped} (an unpaired UTF-16 surrogate)`
}

/** `parent.key`, `parent[2]`, `parent["odd key"]` (a top-level field has no parent: `value`). */
const fieldPath = (parent: string, key: string | number) =>
  typeof key === 'number'
    ? `${parent}[${key}]`
    : /^[A-Za-z_$][\w$-]*$/.test(key)
      ? parent
        ? `${parent}.${key}`
        : key
      : `${parent}[${JSON.stringify(key)}]`

/**
 * Where in a parsed value the first string with an unstorable code unit is: `{ path, message }` with the
 * field path under `root` ('' for a body's own fields, as schema errors name them: `value.a[2]`); a
 * property name's problem is reported at its object. Only called on the refused path, on a value the scan
 * has already bounded in depth. Undefined when no string left in the value holds one (a duplicate key's
 * earlier value, which the parser dropped).
 */
export function locateBadText(value: unknown, root: string): { path: string; message: string } | undefined {
  if (typeof value === 'string') {
    const unit = badUnitOf(value)
    return unit === undefined ? undefined : { path: root, message: `contains ${describeUnit(unit)}, which is not allowed in text` }
  }
  if (typeof value !== 'object' || value === null) return undefined
  if (Array.isArray(value)) {
    for (let k = 0; k < value.length; k++) {
      const issue = locateBadText(value[k], fieldPath(root, k))
      if (issue) return issue
    }
    return undefined
  }
  for (const [key, v] of Object.entries(value)) {
    const unit = badUnitOf(key)
    if (unit !== undefined)
      return { path: root, message: `has a property name that contains ${describeUnit(unit)}, which is not allowed in text` }
    const issue = locateBadText(v, fieldPath(root, key))
    if (issue) return issue
  }
  return undefined
}
