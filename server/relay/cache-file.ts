// RELAY_CACHE_FILE: a relay's last state (its upstream's definitions document, the change number, the keys
// it verified, by hash only, and its spool of batches not yet forwarded), written atomically (a temporary
// file renamed over the old one) after each change, so a relay started while its upstream is away serves
// what it served last.
import { readFileSync, renameSync, writeFileSync } from 'node:fs'
import type { TokenRow } from '../store/tokens'
import type { Log } from '../log'
import type { Batch } from './forwarder'
import type { ListedExperiment } from '../experiments/registry'

export interface RelayCache {
  format: 1
  upstream: string
  /** when the upstream last confirmed the definitions (unix ms) */
  confirmedAt: number
  project: { id: string; slug: string; name: string }
  environment: string | null
  /** the upstream's change number the definitions reflect */
  head: number
  etag: string | null
  /** GET /api/v1/definitions as the upstream answered it */
  definitions: DefinitionsDocument
  keys: TokenRow[]
  spool: Batch[]
  /** ids of batches relays following this one forwarded, already taken (a resend is a no-op) */
  taken?: string[]
}

export interface DefinitionsDocument {
  version: number
  environments: string[]
  flags: Record<string, unknown>[]
  configs: Record<string, unknown>[]
  segments: Record<string, unknown>[]
  /** the running experiments (absent when none runs) */
  experiments?: ListedExperiment[]
}

export function readCache(path: string, upstream: string, log: Log): RelayCache | undefined {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
  try {
    const cache = JSON.parse(text) as RelayCache
    if (cache.format !== 1) throw new Error(`unknown format ${cache.format}`)
    if (cache.upstream !== upstream) {
      log("RELAY_CACHE_FILE holds another upstream's state; starting without it", { file: path, upstream: cache.upstream }, 'warn')
      return undefined
    }
    return cache
  } catch (e) {
    log('RELAY_CACHE_FILE is unreadable; starting without it', { file: path, error: (e as Error).message }, 'warn')
    return undefined
  }
}

/** Writes are coalesced: while one is under way, the next call only marks the state dirty. */
export function cacheWriter(path: string, state: () => RelayCache | undefined, log: Log) {
  let writing = false
  let dirty = false
  const tmp = `${path}.${process.pid}.tmp`
  function write(): void {
    const cache = state()
    if (!cache) return
    try {
      writeFileSync(tmp, JSON.stringify(cache))
      renameSync(tmp, path)
    } catch (e) {
      log('writing RELAY_CACHE_FILE failed', { file: path, error: (e as Error).message }, 'warn')
    }
  }
  return {
    save(): void {
      if (writing) {
        dirty = true
        return
      }
      writing = true
      // After the current turn: the changes of one turn (a batch cut, a definitions reload) share one write.
      queueMicrotask(() => {
        do {
          dirty = false
          write()
        } while (dirty)
        writing = false
      })
    },
    /** At stop: whatever is pending, now. */
    flush: write,
  }
}
