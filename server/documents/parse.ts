// Reading a document someone else wrote (docs/as-code.md §1, §7), refusing hostile input early and
// cheaply: the size is capped before anything is parsed; JSON goes through the service's one-pass scan
// (depth, unstorable text), JSON.parse and a duplicate-key pass; YAML is parsed by the `yaml` library as
// YAML 1.2 core (`no` and `on` stay strings) with unique keys, no custom tags and no explicit tags beyond
// the core JSON types (plain-data.ts), warnings treated as errors, a flow-nesting pre-scan and an alias
// cap (alias bombs fail). No object may have a `__proto__` key (plain-data.ts). Then the value is checked against
// the document's JSON Schema (unknown fields refused by path). Every problem names its path and line.
import { isMap, isSeq, LineCounter, parseDocument, type Document } from 'yaml'
import { describeUnit, locateBadText, MAX_JSON_DEPTH, scanJsonText } from './json-text'
import { duplicateJsonKey, jsonLineOf, type PathSegment } from './json-keys'
import { documentJsonSchema } from './json-schema'
import type { DocumentIssue, FlagshipDocument } from './model'
import { checkSchema, pathText } from './schema-check'
import { forbiddenYamlTag, PROTO_KEY_MESSAGE, protoKeyPath } from './plain-data'

export type DocumentFormat = 'yaml' | 'json'
export interface ParseOptions {
  format?: DocumentFormat
  /** bytes; default 1 MiB (the import route passes 10 MiB) */
  maxBytes?: number
  /** named in each issue (the CLI reads directories of files) */
  file?: string
}
export interface ParseResult {
  document?: FlagshipDocument
  errors: DocumentIssue[]
  /** the line a path (`flags[3].targeting`) starts on in the text, for problems found later (a plan's) */
  lineOf?: (path: string) => number | undefined
}

/** `flags[3].targeting.rules[0]` -> ['flags', 3, 'targeting', 'rules', 0]; `a["odd key"]` too. */
export function pathSegments(path: string): PathSegment[] {
  const out: PathSegment[] = []
  const re = /\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]|\.?([^.[\]]+)/g
  for (let m = re.exec(path); m; m = re.exec(path))
    out.push(m[1] !== undefined ? Number(m[1]) : m[2] !== undefined ? (JSON.parse(m[2]) as string) : m[3]!)
  return out
}

export const MAX_DOCUMENT_BYTES = 1024 * 1024
export const MAX_IMPORT_BYTES = 10 * 1024 * 1024
/** Alias expansions allowed while building values: enough for real reuse, far below a bomb. */
export const MAX_ALIAS_COUNT = 100
const MAX_ISSUES = 100
const schema = documentJsonSchema()

/** JSON when it says so, or when the text starts like a JSON object. */
export const formatOf = (text: string, given?: DocumentFormat): DocumentFormat => given ?? (/^\s*\{/.test(text) ? 'json' : 'yaml')

/** The deepest `[`/`{` flow nesting of YAML text, outside quotes and comments; stops counting past `limit`. */
function flowDepthExceeds(text: string, limit: number): boolean {
  let depth = 0
  let quote = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (quote) {
      if (quote === 34 && c === 92) i++
      else if (c === quote) quote = 0
      continue
    }
    if (c === 34 || c === 39) quote = c
    else if (c === 35 /* # */ && (i === 0 || /\s/.test(text[i - 1]!))) while (i < text.length && text.charCodeAt(i) !== 10) i++
    else if (c === 91 || c === 123) {
      if (++depth > limit) return true
    } else if (c === 93 || c === 125) depth = Math.max(0, depth - 1)
  }
  return false
}

/** The node nesting of a parsed YAML document (block nesting included), iteratively. */
function nodeDepthExceeds(doc: Document, limit: number): boolean {
  const stack: [unknown, number][] = [[doc.contents, 1]]
  while (stack.length) {
    const [node, d] = stack.pop()!
    if (d > limit) return true
    if (isMap(node)) for (const pair of node.items) stack.push([pair.value, d + 1])
    else if (isSeq(node)) for (const item of node.items) stack.push([item, d + 1])
  }
  return false
}

const byteLength = (text: string) => Buffer.byteLength(text, 'utf8')

function parseJson(
  text: string,
  issue: (path: string, message: string, line?: number) => void,
): { value?: unknown; lineOf: (p: PathSegment[]) => number | undefined } {
  const lineOf = (p: PathSegment[]) => jsonLineOf(text, p)
  const problem = scanJsonText(text, MAX_JSON_DEPTH)
  if (problem?.kind === 'depth') return (issue('', `nests deeper than ${MAX_JSON_DEPTH} levels`), { lineOf })
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (e) {
    return (issue('', `malformed JSON: ${(e as Error).message}`), { lineOf })
  }
  if (problem) {
    const bad = locateBadText(value, '')
    return (issue(bad?.path ?? '', bad?.message ?? `contains ${describeUnit(problem.unit)}, which is not allowed in text`), { lineOf })
  }
  const dup = duplicateJsonKey(text)
  if (dup) return (issue(pathText(dup.path), 'duplicate key', dup.line), { lineOf })
  return { value, lineOf }
}

function parseYaml(
  text: string,
  issue: (path: string, message: string, line?: number) => void,
): { value?: unknown; lineOf: (p: PathSegment[]) => number | undefined } {
  const lines = new LineCounter()
  let lineOf = (_p: PathSegment[]): number | undefined => undefined
  if (flowDepthExceeds(text, MAX_JSON_DEPTH)) return (issue('', `nests deeper than ${MAX_JSON_DEPTH} levels`), { lineOf })
  const doc = parseDocument(text, {
    version: '1.2',
    schema: 'core',
    customTags: [],
    uniqueKeys: true,
    strict: true,
    prettyErrors: true,
    merge: false,
    lineCounter: lines,
    keepSourceTokens: false,
  })
  lineOf = (p) => {
    const node = doc.getIn(p, true) as { range?: [number, number, number] } | undefined
    return node?.range ? lines.linePos(node.range[0]).line : undefined
  }
  const problems = [...doc.errors, ...doc.warnings]
  for (const e of problems.slice(0, MAX_ISSUES))
    issue('', e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, ''), e.linePos?.[0]?.line)
  if (problems.length) return { lineOf }
  if (nodeDepthExceeds(doc, MAX_JSON_DEPTH)) return (issue('', `nests deeper than ${MAX_JSON_DEPTH} levels`), { lineOf })
  const tagged = forbiddenYamlTag(doc)
  if (tagged)
    return (
      issue(pathText(tagged.path), tagged.message, tagged.offset !== undefined ? lines.linePos(tagged.offset).line : undefined), { lineOf }
    )
  let value: unknown
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT })
  } catch (e) {
    return (issue('', `${(e as Error).message} (at most ${MAX_ALIAS_COUNT} alias expansions)`), { lineOf })
  }
  const bad = locateBadText(value, '')
  if (bad) return (issue(bad.path, bad.message), { lineOf })
  return { value, lineOf }
}

/** Parses and checks a document's text; `document` only when there is no error. */
export function parseDocumentText(text: string, opts: ParseOptions = {}): ParseResult {
  const errors: DocumentIssue[] = []
  const issue = (path: string, message: string, line?: number) =>
    void errors.push({ ...(opts.file !== undefined && { file: opts.file }), path, ...(line !== undefined && { line }), message })
  const maxBytes = opts.maxBytes ?? MAX_DOCUMENT_BYTES
  // The cheap bound first: string length is at most the UTF-8 size, and 3 bytes per unit at most.
  if (text.length > maxBytes || (text.length * 3 > maxBytes && byteLength(text) > maxBytes)) {
    issue('', `the document exceeds ${maxBytes} bytes`)
    return { errors }
  }
  const format = formatOf(text, opts.format)
  const { value, lineOf } = format === 'json' ? parseJson(text, issue) : parseYaml(text, issue)
  if (errors.length) return { errors }
  const checked = checkParsed(value, { issue, lineOf })
  if (!checked.document) return { errors }
  // The longest prefix of the path that exists in the text gives the line (a path may name a field the
  // plan found missing).
  const lineOfPath = (path: string) => {
    const segs = pathSegments(path)
    for (let n = segs.length; n > 0; n--) {
      const line = lineOf(segs.slice(0, n))
      if (line !== undefined) return line
    }
    return undefined
  }
  return { ...checked, lineOf: lineOfPath }
}

/** The schema check of a parsed value (also for values that never were text: a JS object given to the
 *  SDK or built by a converter). */
export function checkParsed(
  value: unknown,
  opts: { issue?: (path: string, message: string, line?: number) => void; lineOf?: (p: PathSegment[]) => number | undefined } = {},
): ParseResult {
  const errors: DocumentIssue[] = []
  const issue =
    opts.issue ??
    ((path: string, message: string, line?: number) => void errors.push({ path, ...(line !== undefined && { line }), message }))
  const proto = protoKeyPath(value)
  if (proto) {
    issue(pathText(proto), PROTO_KEY_MESSAGE, opts.lineOf?.(proto) ?? opts.lineOf?.(proto.slice(0, -1)))
    return { errors }
  }
  const found = checkSchema(schema, value, MAX_ISSUES)
  for (const i of found) issue(pathText(i.path), i.message, opts.lineOf?.(i.path))
  return found.length ? { errors } : { document: value as FlagshipDocument, errors }
}
