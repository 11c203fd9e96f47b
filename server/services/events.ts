// Change notices and webhook event kinds.
import type { ChangeAuthority } from './change-request-types'

export const RESOURCE_TYPES = ['flag', 'config', 'segment', 'token', 'webhook', 'project', 'schedule', 'member', 'change_request'] as const
/** Notices about people (teams), published like any change notice so every instance drops cached sessions
 *  and re-reads the person (identity/directory.ts, identity/sessions.ts); the key is the user's or the
 *  session's id, the project '' (instance-wide) unless it is a membership. */
export const IDENTITY_TYPES = ['user', 'session', 'member'] as const
export type NoticeType = ResourceType | (typeof IDENTITY_TYPES)[number]
export type ResourceType = (typeof RESOURCE_TYPES)[number]
/** archive, restore and rollback are flag changes (docs/lifecycle.md §3-4), each a change like any other. */
export const ACTIONS = ['create', 'update', 'delete', 'archive', 'restore', 'rollback'] as const
export type Action = (typeof ACTIONS)[number]
const DOCUMENT_ACTIONS = ['create', 'update', 'delete'] as const

/** The versioned documents (services/versioned-documents.ts). */
export type DocumentType = 'flag' | 'config' | 'segment'

const PAST = { create: 'created', update: 'updated', delete: 'deleted', archive: 'archived', restore: 'restored', rollback: 'rolled_back' } as const
type Past<A extends Action> = (typeof PAST)[A]

/** A webhook event kind is the resource and what happened to it: `flag.updated`. */
export type EventKindOf<R extends ResourceType, A extends Action> = `${R}.${Past<A>}`
export const eventKind = <R extends ResourceType, A extends Action>(resource: R, action: A): EventKindOf<R, A> => `${resource}.${PAST[action]}`

/** A scheduled change that could not be applied at its time (services/schedules.ts). Creating, cancelling
 *  and applying a schedule send no event of their own: the applied change sends its resource's event. */
export const SCHEDULE_FAILED = 'schedule.failed'

/** A change request's state changes, and a direct write a project admin forced through a protected
 *  environment (docs/change-requests.md). */
export const CHANGE_REQUEST_EVENTS = ['opened', 'approved', 'rejected', 'applied', 'cancelled', 'failed', 'bypassed'].map((e) => `change_request.${e}`) as ChangeRequestEvent[]
export type ChangeRequestEvent = `change_request.${'opened' | 'approved' | 'rejected' | 'applied' | 'cancelled' | 'failed' | 'bypassed'}`

/** Every kind a webhook may subscribe to: each document's create/update/delete, flags archived, restored
 *  and rolled back, tokens created and deleted, project updates, failed schedules (webhook registrations
 *  themselves send none). */
export const EVENT_KINDS = [
  ...(['flag', 'config', 'segment'] as const).flatMap((r) => DOCUMENT_ACTIONS.map((a) => eventKind(r, a))),
  eventKind('flag', 'archive'), eventKind('flag', 'restore'), eventKind('flag', 'rollback'),
  eventKind('token', 'create'), eventKind('token', 'delete'), eventKind('project', 'update'), SCHEDULE_FAILED, ...CHANGE_REQUEST_EVENTS,
] as unknown as readonly [EventKind, ...EventKind[]]
export type EventKind = EventKindOf<DocumentType, (typeof DOCUMENT_ACTIONS)[number]> | EventKindOf<'flag', 'archive' | 'restore' | 'rollback'>
  | EventKindOf<'token', 'create' | 'delete'> | EventKindOf<'project', 'update'> | typeof SCHEDULE_FAILED | ChangeRequestEvent

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
  /** what allows it on a protected environment (services/change-gate.ts); absent: a direct change */
  authority?: ChangeAuthority
}

/** The kinds of change the change stream carries (tokens, webhooks and schedules are not evaluation state). */
export const STREAMED_TYPES: ReadonlySet<ResourceType> = new Set(['flag', 'config', 'segment', 'project'])

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

/** In-process fan-out of change notices. publish() resolves once every listener has applied the notice,
 *  so a write's response is sent only after this instance's caches show it. */
export class ChangeBus {
  private listeners: Listener[] = []
  subscribe(listener: Listener): () => void {
    this.listeners.push(listener)
    return () => (this.listeners = this.listeners.filter((l) => l !== listener))
  }
  async publish(notice: ChangeNotice): Promise<void> {
    for (const l of this.listeners) await l(notice)
  }
}
