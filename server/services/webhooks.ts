// Webhook registrations. The URL rules are checked here; delivery lives in server/webhooks/.
import { checkWebhookUrl } from '../webhooks/url-guard'
import type { WebhookRow } from '../store/webhooks'
import type { Actor, ServiceDeps } from './context'
import { by } from './context'
import { notFound, validationError, limitReached, conflict, invalid } from '../errors'
import { EVENT_KINDS, type EventKind } from '../store/vocabulary/changes'

const MAX_WEBHOOKS_PER_PROJECT = 100

/** How deliveries to it are going: `paused` after failing too long (see webhooks/worker.ts). */
export function webhookHealth(row: WebhookRow) {
  return {
    status: row.pausedAt ? ('paused' as const) : row.consecutiveFailures > 0 ? ('failing' as const) : ('active' as const),
    consecutive_failures: row.consecutiveFailures,
    failing_since: row.failingSince,
    next_attempt_at: row.retryAt,
    paused_at: row.pausedAt,
  }
}

/** The wire form: the secret is write-only, `has_secret` stands in for it. */
export function webhookView(row: WebhookRow) {
  return { id: row.id, config: { url: row.url, has_secret: row.secret !== null, events: row.events }, health: webhookHealth(row) }
}

export function webhookService({ store, changes, settings }: ServiceDeps) {
  return {
    list: (projectId: string) => store.webhooks.byProject(store.db, projectId),

    create(actor: Actor, input: { url: string; events: string[]; secret?: string | null }) {
      const issues: { path: string; message: string }[] = []
      if (!Array.isArray(input.events) || input.events.length === 0)
        issues.push({ path: 'events', message: 'must be a non-empty list of event kinds (or ["*"])' })
      else
        input.events.forEach((e, i) => {
          if (e !== '*' && !(EVENT_KINDS as readonly string[]).includes(e))
            issues.push({ path: `events[${i}]`, message: `unknown event kind "${e}"` })
        })
      if (input.secret != null && (typeof input.secret !== 'string' || input.secret.length < 1 || input.secret.length > 512))
        issues.push({ path: 'secret', message: 'must be 1 to 512 characters' })
      if (issues.length) throw validationError(issues)
      const verdict = checkWebhookUrl(input.url, { allowPrivate: settings.webhookAllowPrivateTargets })
      if (!verdict.ok) {
        // Say when the operator's switch would allow it (a private or loopback address, an internal name,
        // plain http): an admin testing against a local receiver otherwise cannot find out.
        const liftable = !settings.webhookAllowPrivateTargets && checkWebhookUrl(input.url, { allowPrivate: true }).ok
        const hint = liftable
          ? ' Private, internal and plain-http targets are allowed only when the server runs with ' +
            'WEBHOOK_ALLOW_PRIVATE_TARGETS=true (development and tests).'
          : ''
        throw invalid('INVALID_WEBHOOK_URL', `Webhook URL rejected: ${verdict.reason}.${hint}`, {
          reason: verdict.reason,
          ...(liftable ? { allowed_with: 'WEBHOOK_ALLOW_PRIVATE_TARGETS' } : {}),
        })
      }
      return changes.run(async (tx, record) => {
        const existing = await store.webhooks.byProject(tx, actor.projectId)
        if (existing.length >= MAX_WEBHOOKS_PER_PROJECT) {
          throw limitReached(`A project holds at most ${MAX_WEBHOOKS_PER_PROJECT} webhooks`)
        }
        // One registration per URL: a second would deliver every event twice. Change the events by
        // deleting and registering again.
        const same = existing.find((w) => w.url === input.url)
        if (same) throw conflict('CONFLICT', `A webhook for ${input.url} is registered already (${same.id})`, { id: same.id })
        const row: WebhookRow = {
          id: crypto.randomUUID(),
          projectId: actor.projectId,
          url: input.url,
          secret: input.secret ?? null,
          events: [...new Set(input.events as (EventKind | '*')[])],
          createdAt: new Date().toISOString(),
          consecutiveFailures: 0,
          failingSince: null,
          retryAt: null,
          pausedAt: null,
        }
        await store.webhooks.insert(tx, row)
        await record({
          projectId: actor.projectId,
          ...by(actor),
          action: 'create',
          resourceType: 'webhook',
          resourceKey: row.id,
          before: null,
          after: webhookView(row).config,
        })
        return row
      })
    },

    /** Ends a pause (or a backoff): the webhook is active again and its queued deliveries go out now. */
    resume(actor: Actor, id: string) {
      return changes.run(async (tx, record) => {
        const row = await store.webhooks.get(tx, actor.projectId, id)
        if (!row) throw notFound('NOT_FOUND', `Webhook "${id}"`)
        const resumed = (await store.webhooks.resume(tx, id))!
        await record({
          projectId: actor.projectId,
          ...by(actor),
          action: 'update',
          resourceType: 'webhook',
          resourceKey: id,
          before: { ...webhookView(row).config, health: webhookHealth(row) },
          after: { ...webhookView(resumed).config, health: webhookHealth(resumed) },
        })
        return resumed
      })
    },

    delete(actor: Actor, id: string) {
      return changes.run(async (tx, record) => {
        const row = await store.webhooks.get(tx, actor.projectId, id)
        if (!row) throw notFound('NOT_FOUND', `Webhook "${id}"`)
        await store.webhooks.delete(tx, id)
        await record({
          projectId: actor.projectId,
          ...by(actor),
          action: 'delete',
          resourceType: 'webhook',
          resourceKey: id,
          before: webhookView(row).config,
          after: null,
        })
      })
    },
  }
}
export type WebhookService = ReturnType<typeof webhookService>
