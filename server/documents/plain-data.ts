// What a document may hold beyond its schema: JSON data only, the same on every path that reads it.
// YAML's explicit tags are limited to the core schema's JSON types (`!!binary`, `!!set`, `!!timestamp`,
// `!!omap`, `!!pairs` would become bytes, sets, dates and maps that plan, apply and export each render
// differently), and no object may have a `__proto__` key (plain JavaScript assignment, which canonical
// ordering and diffs use, turns it into the object's prototype: plan and export would hide a value the
// store keeps and serves). Both are refused at their path. Pure.
import { isMap, isPair, isSeq, type Document } from 'yaml'
import type { PathSegment } from './json-keys'

const CORE = 'tag:yaml.org,2002:'
/** The core schema's JSON types: an explicit `!!str 12` is plain YAML 1.2 and means what JSON would. */
const ALLOWED_TAGS = new Set(['str', 'int', 'float', 'bool', 'null', 'map', 'seq'].map((t) => CORE + t))

/** Why a tag is refused, in its message. */
const JSON_DATA_ONLY = 'documents hold JSON data: strings, numbers, booleans, null, maps and lists'

const shortTag = (tag: string) => (tag.startsWith(CORE) ? `!!${tag.slice(CORE.length)}` : tag)

/** The first node (key or value) with a tag other than the core JSON types, with its path. */
export function forbiddenYamlTag(doc: Document): { path: PathSegment[]; message: string; offset?: number } | undefined {
  const stack: [unknown, PathSegment[]][] = [[doc.contents, []]]
  while (stack.length) {
    const [node, path] = stack.pop()!
    const tag = (node as { tag?: unknown } | null)?.tag
    if (typeof tag === 'string' && !ALLOWED_TAGS.has(tag)) {
      const range = (node as { range?: [number, number, number] }).range
      return {
        path,
        message: `the YAML tag ${shortTag(tag)} is not allowed (${JSON_DATA_ONLY})`,
        offset: range?.[0],
      }
    }
    if (isMap(node)) {
      for (const pair of node.items) {
        if (!isPair(pair)) continue
        const key = (pair.key as { value?: unknown } | null)?.value
        const at = [...path, typeof key === 'string' || typeof key === 'number' ? key : String(key)]
        stack.push([pair.value, at], [pair.key, at])
      }
    } else if (isSeq(node)) node.items.forEach((item, i) => stack.push([item, [...path, i]]))
  }
  return undefined
}

/** The path of the first `__proto__` key in a parsed value (JSON.parse and the yaml library both make it an
 *  own property), or undefined. */
export function protoKeyPath(value: unknown): PathSegment[] | undefined {
  const stack: [unknown, PathSegment[]][] = [[value, []]]
  while (stack.length) {
    const [v, path] = stack.pop()!
    if (Array.isArray(v)) v.forEach((item, i) => stack.push([item, [...path, i]]))
    else if (v !== null && typeof v === 'object') {
      if (Object.hasOwn(v, '__proto__')) return [...path, '__proto__']
      for (const [k, child] of Object.entries(v)) stack.push([child, [...path, k]])
    }
  }
  return undefined
}

export const PROTO_KEY_MESSAGE = 'the key __proto__ is not allowed in a document (rename it)'
