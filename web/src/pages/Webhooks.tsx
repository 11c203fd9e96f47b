// Webhooks: register (URL, events, optional secret), delete, see how deliveries are going (failing, paused:
// resume), and inspect recent deliveries.
import { useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { ApiError, EVENT_KINDS, api, keys, type Webhook } from '../api'
import { adminQueries } from '../queries'
import { dateTime, plural, relativeTime } from '../format'
import { nextTry } from '../delivery-times'
import { useApiMutation } from '../mutations'
import { ConfirmDialog, useConfirmAction } from '../components/ConfirmDialog'
import { DataTable } from '../components/DataTable'
import { ErrorMessage } from '../components/ErrorMessage'
import { FormActions } from '../components/FormActions'
import { FormCard } from '../components/FormCard'
import { ListSection } from '../components/ListStates'
import { RelativeTime } from '../components/RelativeTime'
import { Empty, Loading, PageHeader } from '../components/State'

export function Webhooks() {
  // Refreshed while open: a failing webhook's backoff and pause change without anyone editing it.
  const webhooks = useQuery({ ...adminQueries.webhooks(), refetchInterval: 5000 })
  const del = useConfirmAction((w: Webhook) => api.deleteWebhook(w.id), [keys.webhooks])
  const deleting = del.target
  return (
    <>
      <PageHeader title="Webhooks" subtitle="HTTP notifications when flags, configs, segments, tokens or settings change." />
      <CreateWebhook />
      <ListSection
        query={webhooks}
        noun={{ one: 'webhook', many: 'webhooks' }}
        empty={<Empty title="No webhooks yet">Register one above to be told about changes.</Empty>}
      >
        {(rows) => (
          <ul className="card-list">
            {rows.map((w) => (
              <li key={w.id} className="card webhook">
                <div className="webhook-head">
                  <div className="webhook-url">
                    <strong className="mono break">{w.config.url}</strong>
                    <div className="muted small">
                      id <code>{w.id}</code> ·{' '}
                      {w.config.has_secret ? <span className="badge badge-accent">signed</span> : <span className="badge">no secret</span>}
                    </div>
                  </div>
                  <button
                    type="button"
                    className="btn btn-small btn-danger-outline"
                    aria-label={`Delete webhook ${w.config.url}`}
                    onClick={() => del.ask(w)}
                  >
                    Delete
                  </button>
                </div>
                <WebhookHealth webhook={w} />
                <ul className="chips" aria-label="Events">
                  {w.config.events.map((e) => (
                    <li key={e} className="chip">
                      {e === '*' ? 'all events' : e}
                    </li>
                  ))}
                </ul>
                <Deliveries webhook={w} />
              </li>
            ))}
          </ul>
        )}
      </ListSection>
      {deleting && (
        <ConfirmDialog title="Delete webhook?" confirmLabel="Delete webhook" {...del.dialogProps}>
          <p>
            <code className="break">{deleting.config.url}</code> will no longer receive events.
          </p>
        </ConfirmDialog>
      )}
    </>
  )
}

/** Failing or paused: what is happening, and (paused) a Resume button. Nothing while all is well. */
function WebhookHealth({ webhook }: { webhook: Webhook }) {
  const resume = useApiMutation(() => api.resumeWebhook(webhook.id), [keys.webhooks, keys.deliveries(webhook.id)])
  const h = webhook.health
  if (h.status === 'active') return null
  const failingSince = h.failing_since && dateTime(h.failing_since)
  const pausedAt = h.paused_at && relativeTime(h.paused_at)
  return (
    <div className={`webhook-health ${h.status === 'paused' ? 'is-paused' : 'is-failing'}`} role="status" aria-label="Delivery health">
      {h.status === 'paused' ? (
        <>
          <span className="badge status-failed">paused</span> Deliveries failed since {failingSince}; paused {pausedAt}. New events wait in
          its queue.
          <button type="button" className="btn btn-small" onClick={() => resume.mutate()} disabled={resume.isPending}>
            {resume.isPending ? 'Resuming…' : 'Resume'}
          </button>
        </>
      ) : (
        <>
          <span className="badge status-pending">failing</span> {plural(h.consecutive_failures, 'failed attempt')} in a row
          {h.next_attempt_at && (
            <>
              ; backing off,{' '}
              {Date.parse(h.next_attempt_at) > Date.now() ? `next try ${relativeTime(h.next_attempt_at)}` : 'next try due now'}
            </>
          )}
          . Paused if it keeps failing for 24 hours.
        </>
      )}
      <ErrorMessage error={resume.error} title="Could not resume" />
    </div>
  )
}

function Deliveries({ webhook }: { webhook: Webhook }) {
  const [open, setOpen] = useState(false)
  const deliveries = useQuery({ ...adminQueries.deliveries(webhook.id), enabled: open, refetchInterval: open ? 5000 : false })
  const redeliver = useApiMutation((deliveryId: string) => api.redeliver(webhook.id, deliveryId), [keys.deliveries(webhook.id)])
  const unavailable = deliveries.error instanceof ApiError && deliveries.error.status === 404
  return (
    <div className="deliveries">
      <button type="button" className="btn-link" aria-expanded={open} onClick={() => setOpen(!open)}>
        {open ? '▾' : '▸'} Recent deliveries
      </button>
      {open &&
        (deliveries.isLoading ? (
          <Loading label="Loading deliveries…" />
        ) : unavailable ? (
          <p className="muted">Delivery history is not available from this server yet.</p>
        ) : deliveries.isError ? (
          <ErrorMessage error={deliveries.error} title="Could not load deliveries" />
        ) : !deliveries.data?.length ? (
          <p className="muted">No deliveries yet. Change a subscribed resource to send one.</p>
        ) : (
          <>
            <ErrorMessage error={redeliver.error} title="Could not redeliver" />
            <DataTable
              caption={`Deliveries to ${webhook.config.url}`}
              className="compact"
              columns={['Event', 'Status', 'Attempts', 'Last response', 'When', { label: 'Actions', hidden: true }]}
            >
              {deliveries.data.map((d) => (
                <tr key={d.id}>
                  <td data-label="Event">
                    <code>{d.event}</code>
                  </td>
                  <td data-label="Status">
                    <span className={`badge status-${d.status}`}>{d.status}</span>
                    {d.status === 'pending' && <div className="muted small">{nextTry(d.next_attempt_at, webhook)}</div>}
                  </td>
                  <td data-label="Attempts">{d.attempts}</td>
                  <td data-label="Last response">
                    {d.last_status_code ?? '—'}
                    {d.last_error && <div className="muted small break">{d.last_error}</div>}
                  </td>
                  <td data-label="When">
                    <RelativeTime at={d.created_at} />
                  </td>
                  <td data-label="Actions" className="cell-actions">
                    {d.status === 'failed' && (
                      <button
                        type="button"
                        className="btn btn-small"
                        disabled={redeliver.isPending && redeliver.variables === d.id}
                        onClick={() => redeliver.mutate(d.id)}
                        aria-label={`Redeliver ${d.event} delivery ${d.id}`}
                      >
                        Redeliver
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </DataTable>
          </>
        ))}
    </div>
  )
}

function CreateWebhook() {
  const [url, setUrl] = useState('')
  const [secret, setSecret] = useState('')
  const [all, setAll] = useState(false)
  const [events, setEvents] = useState<string[]>(['flag.updated'])
  const create = useApiMutation(api.createWebhook, [keys.webhooks], () => {
    setUrl('')
    setSecret('')
  })
  const chosen = all ? ['*'] : events
  const submit = () => create.mutate({ url: url.trim(), events: chosen, ...(secret ? { secret } : {}) })
  return (
    <FormCard title="Register a webhook" onSubmit={submit}>
      <div className="row-fields">
        <label className="field">
          <span className="field-label">URL</span>
          <input type="url" value={url} onChange={(e) => setUrl(e.target.value)} required placeholder="https://example.com/hooks/flags" />
          <span className="hint">HTTPS on a public host.</span>
        </label>
        <label className="field">
          <span className="field-label">Secret (optional)</span>
          <input type="password" value={secret} onChange={(e) => setSecret(e.target.value)} autoComplete="new-password" />
          <span className="hint">Signs each delivery (X-Webhook-Signature, HMAC-SHA256).</span>
        </label>
      </div>
      <fieldset className="fieldset">
        <legend>Events</legend>
        <label className="checkbox">
          <input type="checkbox" checked={all} onChange={(e) => setAll(e.target.checked)} />
          All events (<code>*</code>)
        </label>
        <div className="checkbox-grid events-grid">
          {EVENT_KINDS.map((k) => (
            <label key={k} className="checkbox">
              <input
                type="checkbox"
                disabled={all}
                checked={all || events.includes(k)}
                onChange={(e) => setEvents(e.target.checked ? [...events, k] : events.filter((x) => x !== k))}
              />
              <code>{k}</code>
            </label>
          ))}
        </div>
      </fieldset>
      <FormActions
        mutation={create}
        errorTitle="Could not register the webhook"
        label="Register webhook"
        pendingLabel="Registering…"
        disabled={!url.trim() || chosen.length === 0}
      />
    </FormCard>
  )
}
