// What evaluation needs from stored configs and flags besides compiling them: a config's value in an
// environment, and the segments a flag refers to. Pure; shared by the server and the SDK.
import type { FlagDefinition, Json } from './types'

/** A config as stored (the evaluation-relevant fields). */
export interface ConfigDefinition {
  value: Json
  environments?: Record<string, { value: Json }>
  /** available to client keys (not read by evaluation; edge.md §1) */
  client_side?: boolean
}

/** The value a config has in one environment (the override's, else the base value). */
export function configValue(config: ConfigDefinition, environment: string | undefined): Json {
  // Own properties only: an environment named `constructor` must not find Object.prototype's.
  const o =
    environment !== undefined && config.environments && Object.hasOwn(config.environments, environment)
      ? config.environments[environment]
      : undefined
  return o ? o.value : config.value
}

/** The keys of the segments a flag's rules test (in_segment / not_in_segment), each once: the flag's rules
 *  and every environment's own. */
export function segmentKeysOf(flag: Pick<FlagDefinition, 'targeting'> & Pick<Partial<FlagDefinition>, 'environments'>): string[] {
  const keys = new Set<string>()
  const own = flag.environments && typeof flag.environments === 'object' ? Object.values(flag.environments).map((o) => o?.targeting) : []
  for (const targeting of [flag.targeting, ...own]) {
    for (const rule of targeting?.rules ?? []) {
      for (const c of rule?.conditions ?? []) {
        if ((c?.operator === 'in_segment' || c?.operator === 'not_in_segment') && typeof c.value === 'string') keys.add(c.value)
      }
    }
  }
  return [...keys]
}
