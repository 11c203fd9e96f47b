// The words of a change: what kinds of resource there are, what can happen to them, and the webhook event kind
// each change sends. The store's tables record them (audit, outbox), so they live in its layer; services,
// schemas and the console import them from here.
import { EXPERIMENT_EVENTS, type ExperimentEvent } from './experiments'
import { RELEASE_EVENTS, type ReleaseEvent } from './release-plans'

/** The versioned documents (services/versioned-documents.ts): the kinds server/kinds/ defines, one each
 *  (the compiler holds the two to the same names). */
export const DOCUMENT_TYPES = ['flag', 'config', 'segment'] as const
export type DocumentType = (typeof DOCUMENT_TYPES)[number]

export const RESOURCE_TYPES = [
  ...DOCUMENT_TYPES,
  'token',
  'webhook',
  'project',
  'schedule',
  'member',
  'change_request',
  'experiment',
  'metric',
  'release_plan',
] as const
export type ResourceType = (typeof RESOURCE_TYPES)[number]
/** archive, restore and rollback are flag changes (docs/lifecycle.md §3-4), each a change like any other. */
export const ACTIONS = [
  'create',
  'update',
  'delete',
  'archive',
  'restore',
  'rollback',
  'start',
  'open_phase',
  'stop',
  'pause',
  'resume',
  'advance',
  'complete',
] as const
export type Action = (typeof ACTIONS)[number]
const DOCUMENT_ACTIONS = ['create', 'update', 'delete'] as const

const PAST = {
  create: 'created',
  update: 'updated',
  delete: 'deleted',
  archive: 'archived',
  restore: 'restored',
  rollback: 'rolled_back',
  start: 'started',
  open_phase: 'phase_opened',
  stop: 'stopped',
  pause: 'paused',
  resume: 'resumed',
  advance: 'advanced',
  complete: 'completed',
} as const
type Past<A extends Action> = (typeof PAST)[A]

/** A webhook event kind is the resource and what happened to it: `flag.updated`. */
export type EventKindOf<R extends ResourceType, A extends Action> = `${R}.${Past<A>}`
export const eventKind = <R extends ResourceType, A extends Action>(resource: R, action: A): EventKindOf<R, A> =>
  `${resource}.${PAST[action]}`

/** A scheduled change that could not be applied at its time (services/schedules.ts). Creating, cancelling
 *  and applying a schedule send no event of their own: the applied change sends its resource's event. */
export const SCHEDULE_FAILED = 'schedule.failed'

/** A change request's state changes, and a direct write a project admin forced through a protected
 *  environment (docs/change-requests.md). */
export const CHANGE_REQUEST_EVENTS = ['opened', 'approved', 'rejected', 'applied', 'cancelled', 'failed', 'bypassed'].map(
  (e) => `change_request.${e}`,
) as ChangeRequestEvent[]
export type ChangeRequestEvent = `change_request.${'opened' | 'approved' | 'rejected' | 'applied' | 'cancelled' | 'failed' | 'bypassed'}`

/** An environment's change-request policy changed (docs/change-requests.md §1); sent besides `project.updated`. */
export const POLICY_UPDATED = 'policy.updated'

/** Every kind a webhook may subscribe to: each document's create/update/delete, flags archived, restored
 *  and rolled back, tokens created and deleted, project updates, failed schedules (webhook registrations
 *  themselves send none). */
export const EVENT_KINDS = [
  ...DOCUMENT_TYPES.flatMap((r) => DOCUMENT_ACTIONS.map((a) => eventKind(r, a))),
  eventKind('flag', 'archive'),
  eventKind('flag', 'restore'),
  eventKind('flag', 'rollback'),
  eventKind('token', 'create'),
  eventKind('token', 'delete'),
  eventKind('project', 'update'),
  SCHEDULE_FAILED,
  ...CHANGE_REQUEST_EVENTS,
  POLICY_UPDATED,
  ...EXPERIMENT_EVENTS,
  ...RELEASE_EVENTS,
] as unknown as readonly [EventKind, ...EventKind[]]
export type EventKind =
  | EventKindOf<DocumentType, (typeof DOCUMENT_ACTIONS)[number]>
  | EventKindOf<'flag', 'archive' | 'restore' | 'rollback'>
  | EventKindOf<'token', 'create' | 'delete'>
  | EventKindOf<'project', 'update'>
  | typeof SCHEDULE_FAILED
  | ChangeRequestEvent
  | typeof POLICY_UPDATED
  | ExperimentEvent
  | ReleaseEvent
