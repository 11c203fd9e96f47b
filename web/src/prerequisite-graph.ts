// The prerequisite graph in the console: refuses a cycle before saving, with the same rule and words as the
// server (the engine's prerequisiteCycle; the server checks again when the flag is written).
import { prerequisiteCycle } from '../../server/engine/prerequisites'

/** The cycle that giving `key` the prerequisites `required` would close, or null. `graph` maps every other
 *  flag's key to the keys it requires. */
export const cycleThrough = (key: string, required: readonly string[], graph: ReadonlyMap<string, readonly string[]>): string[] | null =>
  prerequisiteCycle(key, required, (k) => graph.get(k) ?? [])
