// Change notices and webhook event kinds.

export const EVENT_KINDS = [
  'flag.created', 'flag.updated', 'flag.deleted',
  'config.created', 'config.updated', 'config.deleted',
  'segment.created', 'segment.updated', 'segment.deleted',
  'token.created', 'token.deleted', 'project.updated',
] as const
export type EventKind = (typeof EVENT_KINDS)[number]

export const RESOURCE_TYPES = ['flag', 'config', 'segment', 'token', 'webhook', 'project'] as const
export type ResourceType = (typeof RESOURCE_TYPES)[number]
export const ACTIONS = ['create', 'update', 'delete'] as const
export type Action = (typeof ACTIONS)[number]

/** What one successful change did: becomes one audit entry, the outbox rows, and a change notice. */
export interface Change {
  projectId: string
  actor: string
  action: Action
  resourceType: ResourceType
  resourceKey: string
  before: unknown
  after: unknown
  /** the webhook event, when this change kind has one (webhook registrations have none) */
  event?: { kind: EventKind; environment: string; data: Record<string, unknown> }
}

/** Published after commit so caches (this instance and others) reload what changed. */
export interface ChangeNotice {
  projectId: string
  resourceType: ResourceType
  resourceKey: string
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
