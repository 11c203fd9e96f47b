// What the flag service and its lifecycle operations share about a flag's stored body (its type is the
// kind's: kinds/flag.ts).
import type { FlagBody } from '../kinds'

export type { FlagBody } from '../kinds'

export const isArchived = (body: { archived?: unknown }): boolean => body.archived === true

/** Environment overrides as stored: an override's `targeting: null` (own rules removed) is left out, so
 *  an override without own rules is stored exactly as before they existed. */
export function storedOverrides(environments: unknown): FlagBody['environments'] {
  if (environments === null || typeof environments !== 'object' || Array.isArray(environments))
    return environments as FlagBody['environments']
  return Object.fromEntries(
    Object.entries(environments).map(([name, o]) => {
      if (o === null || typeof o !== 'object' || !('targeting' in o) || (o as { targeting?: unknown }).targeting !== null) return [name, o]
      const { targeting: _removed, ...rest } = o as Record<string, unknown>
      return [name, rest]
    }),
  ) as FlagBody['environments']
}
