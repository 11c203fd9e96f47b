// re2js, the engine of `matches`, is loaded on demand: only definitions that use `matches` need it, and it is
// three times the size of the rest of the SDK. Bundlers put the dynamic import in a chunk of its own.
import { hasRegexEngine } from '../../server/engine/regex'

let loading: Promise<void> | undefined

/** Resolves once the regex engine is installed; a failed load (a browser offline) may be retried. */
export function loadRegexEngine(): Promise<void> {
  if (hasRegexEngine()) return Promise.resolve()
  loading ??= import('../../server/engine/re2').then(
    () => undefined,
    (error: unknown) => {
      loading = undefined
      throw error
    },
  )
  return loading
}
