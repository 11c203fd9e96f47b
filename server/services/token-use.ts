// When each token was last used (last_used_at, informational): the transport notes uses in memory
// (http/auth.ts) and hands them here in batches, since writes happen in services/, not in http/.
import type { Store } from '../store'

/** Records a batch of `[token hash, ms of last use]` in one transaction. */
export async function recordTokenUse(store: Store, batch: readonly (readonly [string, number])[]): Promise<void> {
  await store.transaction(async (tx) => {
    for (const [hash, at] of batch) await store.tokens.touch(tx, hash, new Date(at).toISOString())
  })
}
