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

/** The caller: its project and the name that goes into audit entries (the token prefix, or `cli`). */
export interface Actor {
  projectId: string
  name: string
  /** what lets its changes touch a protected environment (a break-glass reason, an approved request) */
  authority?: ChangeAuthority
  /** audit `actor_type` when not the default */
  actorType?: string
}
