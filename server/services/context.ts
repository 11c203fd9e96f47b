// What every service needs, and who is acting.
import type { Store } from '../store'
import type { Snapshots } from '../cache/snapshots'
import type { Settings } from '../settings'
import type { ChangeRunner } from './change-runner'

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
  /** the hash of the caller's token (absent for the CLI and schedules): what its schedules are filed under */
  tokenHash?: string
}
