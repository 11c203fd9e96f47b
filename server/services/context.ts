// What every service needs, and who is acting.
import type { Store } from '../store'
import type { Snapshots } from '../cache/snapshots'
import type { Settings } from '../settings'
import type { ChangeRunner } from './change-runner'
import type { Actor } from '../access/actor'
export type { Actor } from '../access/actor'

export interface ServiceDeps {
  store: Store
  changes: ChangeRunner
  snapshots: Snapshots
  settings: Settings
}

/** The audit fields of a change made by `actor`. */
export function by(actor: Actor): { actor: string; actorType: string; credential: string | null } {
  const type = actor.type ?? (actor.name === 'cli' ? 'cli' : actor.name.startsWith('schedule:') ? 'schedule' : 'token')
  return { actor: actor.name, actorType: type, credential: actor.credential ?? null }
}
