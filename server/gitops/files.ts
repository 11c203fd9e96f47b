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
  return readdirSync(path).filter((n) => DOCUMENT_FILE.test(n)).sort().map((n) => join(path, n))
}

/** The documents at `path`, merged; `errors` name each file (and path and line). */
export function readDocuments(path: string): { document?: FlagshipDocument; errors: DocumentIssue[] } {
  const errors: DocumentIssue[] = []
  let files: string[]
  try {
    files = documentFiles(path)
  } catch (e) {
    return { errors: [{ file: path, path: '', message: (e as Error).message }] }
  }
  if (!files.length) return { errors: [{ file: path, path: '', message: 'no *.yaml, *.yml or *.json files here' }] }
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
        if (seen && seen !== file) errors.push({ file, path: `${kind}[${i}].key`, message: `"${entry.key}" is also defined in ${basename(seen)}` })
        else {
          where.set(`${kind}:${entry.key}`, file)
          into.push(entry)
        }
      })
    }
  }
  return errors.length ? { errors } : { document: merged, errors }
}
