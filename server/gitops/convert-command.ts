// `flagship convert --from unleash|flagd files... [-o out.yaml] [--report file]` (docs/migration.md):
// reads the other tool's files, writes our document (stdout or -o) and the report of what could not be
// mapped exactly (stderr or --report). Exit 0 exact, 2 converted with reported items, 1 error. Offline.
import { readFileSync, writeFileSync } from 'node:fs'
import { convert, ConvertError, CONVERT_SOURCES, type ConvertSource } from '../documents/convert'
import { serializeDocument } from '../documents/serialize'
import type { Io } from './output'

export async function runConvert(
  from: string | undefined,
  files: string[],
  opts: { output?: string; report?: string; json: boolean },
  io: Io,
): Promise<number> {
  const fail = (message: string) => {
    if (opts.json) io.out(`${JSON.stringify({ error: message })}\n`)
    else io.err(`error: ${message}\n`)
    return 1
  }
  if (!from || !(CONVERT_SOURCES as readonly string[]).includes(from)) return fail(`convert needs --from ${CONVERT_SOURCES.join('|')}`)
  if (!files.length) return fail('convert needs the files to read')
  let inputs: { name: string; text: string }[]
  try {
    inputs = files.map((name) => ({ name, text: readFileSync(name, 'utf8') }))
  } catch (e) {
    return fail((e as Error).message)
  }
  let result
  try {
    result = convert(from as ConvertSource, inputs)
  } catch (e) {
    if (e instanceof ConvertError) return fail(e.message)
    throw e
  }
  const text = serializeDocument(result.document, opts.output?.endsWith('.json') ? 'json' : 'yaml')
  if (opts.output) writeFileSync(opts.output, text)
  else if (!opts.json) io.out(text)
  const report = result.report.map((r) => `${r}\n`).join('')
  if (opts.report) writeFileSync(opts.report, report)
  else if (!opts.json) io.err(report)
  if (opts.json)
    io.out(`${JSON.stringify({ ...(opts.output ? { written: opts.output } : { document: result.document }), report: result.report })}\n`)
  return result.report.length ? 2 : 0
}
