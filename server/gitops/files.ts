// Reading documents from disk for the GitOps CLI: a path is a file or a directory of *.yaml, *.yml and
// *.json files (read in name order, not recursively); the files are merged into one document, and a key
// defined in two files is an error naming both. Each file is parsed with the same hostile-input rules
// as the server (server/documents/parse.ts).
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { basename, join } from 'node:path'
import { KINDS, type DocumentIssue, type FlagshipDocument } from '../documents/model'
import { MAX_IMPORT_BYTES, parseDocumentText } from '../documents/parse'

const DOCUMENT_FILE = /\.(ya?ml|json)$/i

export function documentFiles(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path]
  return readdirSync(path)
    .filter((n) => DOCUMENT_FILE.test(n))
    .sort()
    .map((n) => join(path, n))
}

interface Origin {
  file: string
  index: number
  lineOf?: (path: string) => number | undefined
}

/** The documents at `path`, merged; `errors` name each file (and path and line). `locate` turns an issue
 *  about the merged document (`flags[7].value`) into one about its file (`b.yaml`, `flags[2].value`, line). */
export function readDocuments(path: string): {
  document?: FlagshipDocument
  errors: DocumentIssue[]
  locate: (issue: DocumentIssue) => DocumentIssue
} {
  const errors: DocumentIssue[] = []
  const origins = new Map<string, Origin>() // `kind[i]` of the merged document -> where it came from
  const locate = (issue: DocumentIssue): DocumentIssue => {
    const m = /^(\w+)\[(\d+)\](.*)$/.exec(issue.path)
    const origin = m ? origins.get(`${m[1]}[${m[2]}]`) : undefined
    if (!m || !origin) return issue
    const local = `${m[1]}[${origin.index}]${m[3]}`
    const line = origin.lineOf?.(local)
    return { file: origin.file, path: local, ...(line !== undefined && { line }), message: issue.message }
  }
  let files: string[]
  try {
    files = documentFiles(path)
  } catch (e) {
    return { errors: [{ file: path, path: '', message: (e as Error).message }], locate }
  }
  if (!files.length) return { errors: [{ file: path, path: '', message: 'no *.yaml, *.yml or *.json files here' }], locate }
  const merged: FlagshipDocument = { flagship: 1 }
  const where = new Map<string, string>() // `kind:key` -> file
  for (const file of files) {
    const size = statSync(file).size
    if (size > MAX_IMPORT_BYTES) {
      errors.push({ file, path: '', message: `the file exceeds ${MAX_IMPORT_BYTES} bytes` })
      continue
    }
    const text = readFileSync(file, 'utf8')
    const parsed = parseDocumentText(text, { file, maxBytes: MAX_IMPORT_BYTES, format: /\.json$/i.test(file) ? 'json' : 'yaml' })
    if (!parsed.document) {
      errors.push(...parsed.errors)
      continue
    }
    const doc = parsed.document
    if (doc.project !== undefined) merged.project ??= doc.project
    if (doc.environments) merged.environments = [...new Set([...(merged.environments ?? []), ...doc.environments])]
    for (const kind of KINDS) {
      const list = doc[kind] as { key: string }[] | undefined
      if (!list) continue
      const into = ((merged as unknown as Record<string, { key: string }[]>)[kind] ??= [])
      list.forEach((entry, i) => {
        const seen = where.get(`${kind}:${entry.key}`)
        if (seen && seen !== file)
          errors.push({ file, path: `${kind}[${i}].key`, message: `"${entry.key}" is also defined in ${basename(seen)}` })
        else {
          where.set(`${kind}:${entry.key}`, file)
          origins.set(`${kind}[${into.length}]`, { file, index: i, ...(parsed.lineOf && { lineOf: parsed.lineOf }) })
          into.push(entry)
        }
      })
    }
  }
  return errors.length ? { errors, locate } : { document: merged, errors, locate }
}
