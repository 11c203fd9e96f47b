// `convert --from unleash|flagd` (docs/migration.md): another tool's flag definitions as a Flagship
// document, and a report of everything that could not be mapped exactly (nothing is dropped silently).
// Pure: the caller reads the files and writes the document (serialize.ts) and the report.
import type { FlagshipDocument } from '../model'
import { ConvertError } from './unleash-input'
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
export function convert(from: ConvertSource, files: { name: string; text: string }[], options: ConvertOptions = {}): { document: FlagshipDocument; report: string[] } {
  const now = options.now ?? Date.now()
  const parsed = files.map((f) => ({ name: f.name, json: parseJson(f) }))
  switch (from) {
    case 'unleash':
      return convertUnleash(parsed, now)
    case 'flagd':
      return convertFlagd(parsed)
    default:
      throw new ConvertError(`unknown source ${JSON.stringify(from)}; expected one of ${CONVERT_SOURCES.join(', ')}`)
  }
}
