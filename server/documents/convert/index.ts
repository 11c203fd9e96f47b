// `convert --from unleash|flagd` (docs/migration.md): another tool's flag definitions as a Flagship
// document, and a report of everything that could not be mapped exactly (nothing is dropped silently).
// Pure: the caller reads the files and writes the document (serialize.ts) and the report.
import type { FlagshipDocument } from '../model'
import { validateDocument } from '../validate'
import { ConvertError } from './errors'
import { convertFlagd } from './flagd'
import { convertUnleash } from './unleash'

export { ConvertError }
export type ConvertSource = 'unleash' | 'flagd'
export const CONVERT_SOURCES: readonly ConvertSource[] = ['unleash', 'flagd']

export interface ConvertOptions {
  /** the instant date constraints are decided at (Unleash DATE_AFTER / DATE_BEFORE); default now */
  now?: number
}

function parseJson(file: { name: string; text: string }): unknown {
  try {
    return JSON.parse(file.text)
  } catch (e) {
    throw new ConvertError(`${file.name}: not JSON (${(e as Error).message})`)
  }
}

/**
 * Converts the files of another tool. Throws ConvertError when the input cannot be read at all (the
 * CLI's exit 1); otherwise `report` lists what is not exact (exit 2 when it is not empty, else 0).
 */
export function convert(
  from: ConvertSource,
  files: { name: string; text: string }[],
  options: ConvertOptions = {},
): { document: FlagshipDocument; report: string[] } {
  const now = options.now ?? Date.now()
  const parsed = files.map((f) => ({ name: f.name, json: parseJson(f) }))
  let out: { document: FlagshipDocument; report: string[] }
  switch (from) {
    case 'unleash':
      out = convertUnleash(parsed, now)
      break
    case 'flagd':
      out = convertFlagd(parsed)
      break
    default:
      throw new ConvertError(`unknown source ${JSON.stringify(from)}; expected one of ${CONVERT_SOURCES.join(', ')}`)
  }
  // A source can hold more than our limits allow (rules, variants, sizes): what an import would refuse
  // is said here too, so the report is the whole story.
  for (const issue of validateDocument(out.document))
    out.report.push(`the converted document fails validation at ${issue.path}: ${issue.message} (an import refuses it until this is fixed)`)
  return out
}
