// Loads re2js, the engine of `matches`, on demand for the SDK and the console: only definitions and conditions
// that use `matches` need it, and it is larger than the rest of the SDK three times over and a quarter of the
// console's script. Bundlers put the dynamic import in a chunk of its own. (A module apart from regex.ts, which
// re2.ts imports, so that no import goes round in a circle.)
import { hasRegexEngine } from './regex'

let loading: Promise<void> | undefined

/** Installs re2js unless an engine is installed; resolves once it is. A failed load (a browser offline) may
 *  be retried. */
export function loadRegexEngine(): Promise<void> {
  if (hasRegexEngine()) return Promise.resolve()
  loading ??= import('./re2').then(
    () => undefined,
    (error: unknown) => {
      loading = undefined
      throw error
    },
  )
  return loading
}
