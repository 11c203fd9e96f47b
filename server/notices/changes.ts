// What one change did (audit, outbox, stream) and the notices that tell caches, streams and other instances
// about it: the floor services, cache, streams, cluster, experiments, identity and relay all stand on (it
// imports only store/vocabulary/). The change vocabulary itself (resource types, actions, event kinds) is
// store/vocabulary/changes.ts.
import type { ChangeAuthority } from '../store/vocabulary/change-requests'
import type { Action, EventKind, ResourceType } from '../store/vocabulary/changes'

/** Notices about people (teams), published like any change notice so every instance drops cached sessions
 *  and re-reads the person (identity/directory.ts, identity/sessions.ts); the key is the user's or the
 *  session's id, the project '' (instance-wide) unless it is a membership. */
export const IDENTITY_TYPES = ['user', 'session', 'member'] as const
export type NoticeType = ResourceType | (typeof IDENTITY_TYPES)[number]

/** What one successful change did: becomes one audit entry, the outbox rows, and a change notice. */
export interface Change {
  projectId: string
  actor: string
  /** who acted (services/context.ts `by`); `token` when absent */
  actorType?: string
  credential?: string | null
  action: Action
  resourceType: ResourceType
  resourceKey: string
  before: unknown
  after: unknown
  /** what else the audit entry records, e.g. `change_set`: the id shared by the changes of one import */
  details?: Record<string, unknown>
  /** the webhook event, when this change kind has one (webhook registrations have none) */
  event?: { kind: EventKind; environment: string; data: Record<string, unknown> }
  /** further webhook events of the same change (a policy change is also `policy.updated`) */
  alsoEmit?: { kind: EventKind; environment: string; data: Record<string, unknown> }[]
  /** what allows it on a protected environment (services/change-gate.ts); absent: a direct change */
  authority?: ChangeAuthority
}

/** The kinds of change the change stream carries (tokens, webhooks and schedules are not evaluation state). */
// Experiments too: an SDK learns from the stream that the flags in running experiments changed (/definitions).
export const STREAMED_TYPES: ReadonlySet<ResourceType> = new Set(['flag', 'config', 'segment', 'project', 'experiment'])

/** One entry of a project's change stream: `seq` numbers the project's changes in commit order; the rest is
 *  the `change` event's data (GET /api/v1/stream), plus the commit time. Never holds secrets. */
export interface StreamChange {
  seq: number
  resource_type: ResourceType
  key: string
  action: Action
  version: number | null
  environment: string
  at: string
}

/** Published after commit so caches (this instance and others) reload what changed, and streams tell
 *  their subscribers (`change`, for the kinds the stream carries). */
export interface ChangeNotice {
  projectId: string
  resourceType: NoticeType
  resourceKey: string
  change?: StreamChange
}

type Listener = (notice: ChangeNotice) => void | Promise<void>
/** Takes the notices of one commit together, in commit order: what a listener does per notice (a read, a
 *  message to other instances) it may then do once for them all. */
type BatchListener = (notices: readonly ChangeNotice[]) => void | Promise<void>

/** In-process fan-out of change notices. publish() resolves once every listener has applied the notice,
 *  so a write's response is sent only after this instance's caches show it. */
export class ChangeBus {
  private listeners: { one: Listener; all?: BatchListener }[] = []
  /** `all`, when given, takes the notices of publishAll instead of `one` being called for each. */
  /** `first`: before the listeners subscribed so far (what they read must be current when they run). */
  subscribe(listener: Listener, all?: BatchListener, first = false): () => void {
    const entry = { one: listener, all }
    if (first) this.listeners.unshift(entry)
    else this.listeners.push(entry)
    return () => (this.listeners = this.listeners.filter((l) => l !== entry))
  }
  async publish(notice: ChangeNotice): Promise<void> {
    for (const l of this.listeners) await l.one(notice)
  }
  /** The notices of one commit, in order; resolves, like publish, once every listener has applied them all. */
  async publishAll(notices: readonly ChangeNotice[]): Promise<void> {
    if (notices.length <= 1) return notices.length ? this.publish(notices[0]!) : undefined
    for (const l of this.listeners) {
      if (l.all) await l.all(notices)
      else for (const n of notices) await l.one(n)
    }
  }
}
