// Percentage rollout bucketing (docs/behaviour.md §4): a stable bucket in [0, 100) with two decimals per
// (flag, attribute value), so the same user stays in or out as the percentage moves.
import { murmur3, murmur3After, murmur3Prefix, type Murmur3Prefix } from './murmur'

/** The bucket of `attributeValue` for `flagKey`: (murmur3(`<flag key>:<value>`) mod 10000) / 100. */
export function bucketOf(flagKey: string, attributeValue: string): number {
  return (murmur3(`${flagKey}:${attributeValue}`) % 10000) / 100
}

/** Whether the bucket falls inside a rollout of `percentage` (0 lets nobody in, 100 everybody). */
export function inRollout(flagKey: string, attributeValue: string, percentage: number): boolean {
  return bucketOf(flagKey, attributeValue) < percentage
}

/** bucketOf for one flag, its `<flag key>:` hashed once (compiled flags hold one): the same buckets,
 *  without building the `key:value` string per evaluation. */
export class Bucketer {
  private readonly prefix: Murmur3Prefix
  constructor(flagKey: string) {
    this.prefix = murmur3Prefix(`${flagKey}:`)
  }

  bucket(attributeValue: string): number {
    // `>>> 0` again: the hash is already an unsigned 32-bit integer, but murmur3After also returns from a
    // fallback path, and without this V8 types the result as any number and takes a floating-point modulo
    // (a C call, a fifth of an SDK evaluation on Node) instead of an integer one.
    return ((murmur3After(this.prefix, attributeValue) >>> 0) % 10000) / 100
  }
}
