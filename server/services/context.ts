// What every service needs, and who is acting.
import type { Store } from '../store'
import type { Snapshots } from '../cache/snapshots'
import type { Settings } from '../settings'
import type { ChangeRunner } from './change-runner'
import type { ChangeAuthority } from './change-request-types'

export interface ServiceDeps {
  store: Store
  changes: ChangeRunner
  snapshots: Snapshots
  settings: Settings
}

/** The caller: its project and the name that goes into audit entries (the token prefix, `cli`, or a
 *  person's email), what kind of caller it is and, for a person, the credential used. */
export interface Actor {
  projectId: string
  name: string
  /** the hash of the caller's token (absent for the CLI and schedules): what its schedules are filed under */
  tokenHash?: string
  /** what lets its changes touch a protected environment (a break-glass reason, an approved request) */
  authority?: ChangeAuthority
  /** `user`, `token`, `cli`, `schedule` or `change_request`; inferred from the name when absent */
  type?: string
  /** a person's: `session` or their personal token's prefix */
  credential?: string | null
}

/** The audit fields of a change made by `actor`. */
export function by(actor: Actor): { actor: string; actorType: string; credential: string | null } {
  const type = actor.type ?? (actor.name === 'cli' ? 'cli' : actor.name.startsWith('schedule:') ? 'schedule' : 'token')
  return { actor: actor.name, actorType: type, credential: actor.credential ?? null }
}
