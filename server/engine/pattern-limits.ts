// What a `matches` pattern may cost (docs/behaviour.md §8). re2js runs in time linear in program size ×
// text length, and compiling costs about half a microsecond per program instruction, so both are bounded
// when a pattern is written: at most MAX_PATTERN_LENGTH characters, counted repetitions ({n}, {n,m}) of at
// most MAX_REPEAT, a compiled program of at most MAX_PATTERN_PROGRAM instructions, and all the patterns of
// one flag (or one segment) together at most MAX_PATTERNS_PROGRAM. The program size is only known after
// compiling, so a cheap reading of the text estimates it first and refuses what would be expensive to
// compile at all (repetitions nest: `(?:(?:x{10}){10}){10}` is 1,000 copies of x).
import { compileRegex, type CompiledRegex } from './regex'

export const MAX_PATTERN_LENGTH = 1024
export const MAX_REPEAT = 100
export const MAX_PATTERN_PROGRAM = 2000
export const MAX_PATTERNS_PROGRAM = 10_000

/** The largest counted repetition and an upper estimate of the program size, read off the text. */
export function patternShape(pattern: string): { maxRepeat: number; weight: number } {
  const sums: number[] = [0]
  let last = 0
  let maxRepeat = 0
  const atom = (w: number) => {
    sums[sums.length - 1]! += w
    last = w
  }
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!
    if (c === '\\') {
      const n = pattern[i + 1]
      if (n === 'Q') {
        const end = pattern.indexOf('\\E', i + 2)
        const stop = end === -1 ? pattern.length : end
        atom(Math.max(1, stop - (i + 2)))
        i = end === -1 ? pattern.length : end + 1
        continue
      }
      i++
      // \p{Greek}, \x{10FFFF}: one atom with its braces.
      if ((n === 'p' || n === 'P' || n === 'x') && pattern[i + 1] === '{') {
        const close = pattern.indexOf('}', i + 1)
        i = close === -1 ? pattern.length : close
      }
      atom(1)
    } else if (c === '[') {
      // A character class is one instruction, whatever it holds.
      let j = i + 1
      if (pattern[j] === '^') j++
      if (pattern[j] === ']') j++
      while (j < pattern.length && pattern[j] !== ']') {
        if (pattern[j] === '\\') j++
        else if (pattern[j] === '[' && pattern[j + 1] === ':') {
          const close = pattern.indexOf(':]', j + 2)
          if (close !== -1) j = close + 1
        }
        j++
      }
      i = j
      atom(1)
    } else if (c === '(') {
      sums.push(0)
      last = 0
    } else if (c === ')') {
      const inner = sums.length > 1 ? sums.pop()! : 0
      atom(inner + 1)
    } else if (c === '{') {
      const m = /^\{(\d{1,7})(?:(,)(\d{0,7}))?\}/.exec(pattern.slice(i, i + 20))
      if (m) {
        const low = Number(m[1])
        const high = m[2] === undefined ? low : m[3] === '' ? low + 1 : Number(m[3])
        const times = Math.max(low, high, 1)
        maxRepeat = Math.max(maxRepeat, low, m[3] ? high : low)
        sums[sums.length - 1]! += last * (times - 1)
        last *= times
        i += m[0].length - 1
      } else atom(1)
    } else if (c === '*' || c === '+' || c === '?' || c === '|') {
      sums[sums.length - 1]! += 1
    } else atom(1)
  }
  let weight = 0
  for (const s of sums) weight += s
  return { maxRepeat, weight: weight + 2 }
}

/** The compiled pattern, or the reason it is refused. */
export function checkPattern(pattern: string): { regex: CompiledRegex } | { problem: string } {
  if (pattern.length > MAX_PATTERN_LENGTH) return { problem: `must be at most ${MAX_PATTERN_LENGTH} characters` }
  const { maxRepeat, weight } = patternShape(pattern)
  if (maxRepeat > MAX_REPEAT) return { problem: `counted repetitions may repeat at most ${MAX_REPEAT} times (found {${maxRepeat}})` }
  // Twice the program limit: the estimate counts a few instructions more than re2js makes.
  if (weight > 2 * MAX_PATTERN_PROGRAM) return { problem: `is too large: its program would exceed ${MAX_PATTERN_PROGRAM} instructions` }
  const regex = compileRegex(pattern)
  if (regex === undefined) return { problem: 'is not a valid regular expression (RE2 syntax: no backreferences or lookarounds)' }
  if (regex.size > MAX_PATTERN_PROGRAM)
    return { problem: `is too large: its program has ${regex.size} instructions, at most ${MAX_PATTERN_PROGRAM} allowed` }
  return { regex }
}
