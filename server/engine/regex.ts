// The regular-expression engine behind `matches`, plugged in from outside so the rest of the engine carries
// no regex library: the server loads re2js when it starts (re2.ts, imported by index.ts); the SDK and the
// console load it on demand (regex-loader.ts), only once a definition or a condition uses `matches`, which
// keeps re2js (~46 kB gzip) out of what browsers download up front.

import { isObject } from './is-object'

/** A compiled pattern: an unanchored search, like RegExp.prototype.test. */
export interface CompiledRegex {
  test(text: string): boolean
  /** the compiled program's instruction count: a test costs at most about size × (text length + 1) steps */
  readonly size: number
}

/** Compiles a pattern; throws when the pattern is not valid for the engine. */
export type RegexCompiler = (pattern: string) => CompiledRegex

let compiler: RegexCompiler | undefined

/** Installs the regex engine (re2.ts does this for re2js). */
export function setRegexEngine(compile: RegexCompiler): void {
  compiler = compile
  cache.clear()
}

/** Whether a regex engine is installed (the SDK checks before compiling definitions that use `matches`). */
export function hasRegexEngine(): boolean {
  return compiler !== undefined
}

/** Compiles a pattern; `undefined` when it does not compile. Compiling without an engine is a programming
 *  error (a `matches` condition would silently never hold), so it throws instead of answering. */
export function compileRegex(pattern: string): CompiledRegex | undefined {
  if (compiler === undefined) throw new Error('no regular-expression engine installed: import server/engine/re2 first')
  // Compiling costs about half a microsecond per instruction, and one pattern is often compiled many times
  // (validation, then every flag that uses a segment, again at each change): compiled patterns are kept,
  // the most recent MAX_CACHED of them. A compiled pattern holds no state between tests.
  const cached = cache.get(pattern)
  if (cached !== undefined || cache.has(pattern)) return cached
  let compiled: CompiledRegex | undefined
  try {
    compiled = compiler(pattern)
  } catch {
    compiled = undefined
  }
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!)
  cache.set(pattern, compiled)
  return compiled
}

const MAX_CACHED = 1000
const cache = new Map<string, CompiledRegex | undefined>()

/** Whether any of these condition lists holds a `matches` condition (which needs the regex engine). */
export function conditionsUseRegex(conditionLists: Iterable<unknown>): boolean {
  for (const list of conditionLists) {
    if (!Array.isArray(list)) continue
    for (const c of list) if (isObject(c) && c.operator === 'matches') return true
  }
  return false
}
