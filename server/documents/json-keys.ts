// What JSON.parse does not tell about JSON text: a key given twice in one object (JSON.parse keeps the
// last one silently; a document must refuse it) and the line a value starts on (for error messages).
// One linear pass over text JSON.parse has already accepted, so it need not handle malformed input. Pure.

export type PathSegment = string | number

interface Frame {
  object: boolean
  keys: Set<string> | null
  index: number
  key: string | null
}

/** Walks `text` (valid JSON); calls `onValue` with each value's path and line, and returns the first
 *  duplicate key (its path and line), if any. `onValue` returning true stops the walk. */
function walk(text: string, onValue?: (path: PathSegment[], line: number) => boolean): { path: PathSegment[]; line: number } | undefined {
  const stack: Frame[] = []
  const path: PathSegment[] = []
  let line = 1
  const valueStarts = (): boolean => (onValue ? onValue(path, line) : false)
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 10) {
      line++
      continue
    }
    if (c === 32 || c === 9 || c === 13 || c === 58 /* : */) continue
    const top = stack[stack.length - 1]
    if (c === 44 /* , */) {
      if (top && !top.object) {
        top.index++
        path[path.length - 1] = top.index
      } else if (top) {
        top.key = null
        path.pop()
      }
      continue
    }
    if (c === 34 /* " */) {
      let j = i + 1
      while (text.charCodeAt(j) !== 34) j += text.charCodeAt(j) === 92 ? 2 : 1
      if (top?.object && top.key === null) {
        const key = JSON.parse(text.slice(i, j + 1)) as string
        if (top.keys!.has(key)) return { path: [...path, key], line }
        top.keys!.add(key)
        top.key = key
        path.push(key)
      } else if (valueStarts()) return undefined
      i = j
      continue
    }
    if (c === 123 /* { */ || c === 91 /* [ */) {
      if (valueStarts()) return undefined
      const object = c === 123
      stack.push({ object, keys: object ? new Set() : null, index: 0, key: null })
      if (!object) path.push(0)
      continue
    }
    if (c === 125 /* } */ || c === 93 /* ] */) {
      const f = stack.pop()!
      if (!f.object || f.key !== null) path.pop()
      // an empty array pushed index 0 for nothing; popped above either way
      continue
    }
    // a number, true, false or null
    if (valueStarts()) return undefined
    while (i + 1 < text.length && !/[\s,\]}]/.test(text[i + 1]!)) i++
  }
  return undefined
}

/** The first key given twice in one object. */
export const duplicateJsonKey = (text: string) => walk(text)

/** The line the value at `target` starts on (undefined when there is none). */
export function jsonLineOf(text: string, target: readonly PathSegment[]): number | undefined {
  let found: number | undefined
  walk(text, (path, line) => {
    if (path.length === target.length && path.every((p, i) => p === target[i])) return ((found = line), true)
    return false
  })
  return found
}
