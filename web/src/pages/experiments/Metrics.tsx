// The metrics experiments measure (docs/experiments.md §3): what each counts per unit, over which window,
// capped where, and which direction is good; a form to define one; Delete (refused while an experiment uses it).
import { useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { experimentKeys, experimentsApi, type Aggregation, type Metric, type MetricInput, type MetricKind } from '../../experiments-api'
import { useSession } from '../../session'
import { plural } from '../../format'
import { useApiMutation } from '../../mutations'
import { ConfirmDialog } from '../../components/ConfirmDialog'
import { CreateDialog, KeyField } from '../../components/CreateDialog'
import { DataTable } from '../../components/DataTable'
import { ListStates } from '../../components/ListStates'
import { Empty, PageHeader } from '../../components/State'

/** What a metric measures per unit, in words. */
export function describeMetric(
  m: Pick<Metric, 'kind' | 'event' | 'aggregation' | 'denominator_event' | 'denominator_aggregation'>,
): string {
  const of = (agg: Aggregation | undefined, event: string) => (agg === 'sum' ? `sum of ${event} values` : `${event} events`)
  if (m.kind === 'proportion') return `has at least one ${m.event}`
  if (m.kind === 'mean') return `${of(m.aggregation, m.event)} per unit`
  return `${of(m.aggregation, m.event)} ÷ ${of(m.denominator_aggregation, m.denominator_event ?? '?')}`
}

export function Metrics() {
  const { can } = useSession()
  const query = useQuery({ queryKey: experimentKeys.metrics, queryFn: experimentsApi.metrics })
  const [creating, setCreating] = useState(false)
  const [deleting, setDeleting] = useState<string | null>(null)
  const remove = useApiMutation(experimentsApi.deleteMetric, [experimentKeys.metrics], () => setDeleting(null))
  const newButton = (label: string) => (
    <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>
      {label}
    </button>
  )
  return (
    <>
      <PageHeader
        title="Metrics"
        subtitle={query.data ? plural(query.data.length, 'metric') : 'What experiments measure'}
        actions={can.writeFlags && newButton('New metric')}
      />
      <ListStates
        query={query}
        what="the metrics"
        none={(d) => d.length === 0}
        empty={
          <Empty title="No metrics yet">
            <p>A metric turns track events into one number per unit: whether it converted, how much, or a ratio.</p>
            {can.writeFlags && newButton('Define your first metric')}
          </Empty>
        }
      >
        {(rows) => (
          <DataTable
            caption="Metrics"
            columns={[
              'Metric',
              'Measures',
              'Kind',
              'Window',
              'Cap',
              'Good when',
              ...(can.writeFlags ? [{ label: 'Actions', hidden: true as const }] : []),
            ]}
          >
            {rows.map((m) => (
              <tr key={m.key}>
                <td data-label="Metric">
                  <strong>{m.name}</strong>
                  <div className="muted small mono">{m.key}</div>
                  {m.description && <div className="small">{m.description}</div>}
                </td>
                <td data-label="Measures">{describeMetric(m)}</td>
                <td data-label="Kind">{m.kind}</td>
                <td data-label="Window">{m.window_hours ? `${m.window_hours} h after exposure` : 'since exposure'}</td>
                <td data-label="Cap">{m.cap ?? <span className="muted">—</span>}</td>
                <td data-label="Good when">{m.higher_is_better ? 'higher' : 'lower'}</td>
                {can.writeFlags && (
                  <td className="cell-actions">
                    <button
                      type="button"
                      className="btn btn-small btn-danger-outline"
                      aria-label={`Delete ${m.key}`}
                      onClick={() => setDeleting(m.key)}
                    >
                      Delete
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </DataTable>
        )}
      </ListStates>
      {creating && <NewMetricDialog onClose={() => setCreating(false)} />}
      {deleting && (
        <ConfirmDialog
          title={`Delete ${deleting}?`}
          confirmLabel="Delete metric"
          onConfirm={() => remove.mutate(deleting)}
          onCancel={() => {
            setDeleting(null)
            remove.reset()
          }}
          pending={remove.isPending}
          error={remove.error}
        >
          <p>Experiments that name it must drop it first.</p>
        </ConfirmDialog>
      )}
    </>
  )
}

function NewMetricDialog({ onClose }: { onClose: () => void }) {
  const [key, setKey] = useState('')
  const [name, setName] = useState('')
  const [description, setDescription] = useState('')
  const [kind, setKind] = useState<MetricKind>('proportion')
  const [event, setEvent] = useState('')
  const [aggregation, setAggregation] = useState<Aggregation>('count')
  const [denominatorEvent, setDenominatorEvent] = useState('')
  const [denominatorAggregation, setDenominatorAggregation] = useState<Aggregation>('count')
  const [windowHours, setWindowHours] = useState('')
  const [cap, setCap] = useState('')
  const [higherIsBetter, setHigherIsBetter] = useState(true)
  const create = useApiMutation(experimentsApi.createMetric, [experimentKeys.metrics], onClose)
  const submit = () => {
    const body: MetricInput = {
      key: key.trim(),
      name: name.trim() || key.trim(),
      kind,
      event: event.trim(),
      higher_is_better: higherIsBetter,
      ...(description.trim() && { description: description.trim() }),
      ...(kind !== 'proportion' && { aggregation }),
      ...(kind === 'ratio' && { denominator_event: denominatorEvent.trim(), denominator_aggregation: denominatorAggregation }),
      ...(windowHours.trim() && { window_hours: Number(windowHours) }),
      ...(cap.trim() && { cap: Number(cap) }),
    }
    create.mutate(body)
  }
  const aggregationSelect = (label: string, value: Aggregation, set: (a: Aggregation) => void) => (
    <label className="field">
      <span className="field-label">{label}</span>
      <select value={value} onChange={(e) => set(e.target.value as Aggregation)}>
        <option value="count">count of events</option>
        <option value="sum">sum of their values</option>
      </select>
    </label>
  )
  return (
    <CreateDialog
      noun="metric"
      mutation={create}
      onClose={onClose}
      disabled={!key.trim() || !event.trim() || (kind === 'ratio' && !denominatorEvent.trim())}
      onSubmit={submit}
    >
      <KeyField value={key} onChange={setKey} placeholder="purchase" />
      <label className="field">
        <span className="field-label">Name</span>
        <input value={name} onChange={(e) => setName(e.target.value)} placeholder="Purchased" />
      </label>
      <label className="field">
        <span className="field-label">Description</span>
        <input value={description} onChange={(e) => setDescription(e.target.value)} />
      </label>
      <div className="row-fields">
        <label className="field">
          <span className="field-label">Kind</span>
          <select value={kind} onChange={(e) => setKind(e.target.value as MetricKind)}>
            <option value="proportion">proportion: the unit did it at least once</option>
            <option value="mean">mean: per-unit count or sum</option>
            <option value="ratio">ratio: per-unit numerator over denominator</option>
          </select>
        </label>
        <label className="field">
          <span className="field-label">Event</span>
          <input value={event} onChange={(e) => setEvent(e.target.value)} className="mono" placeholder="purchase" required />
        </label>
        {kind !== 'proportion' && aggregationSelect('Per unit', aggregation, setAggregation)}
      </div>
      {kind === 'ratio' && (
        <div className="row-fields">
          <label className="field">
            <span className="field-label">Denominator event</span>
            <input
              value={denominatorEvent}
              onChange={(e) => setDenominatorEvent(e.target.value)}
              className="mono"
              placeholder="session_start"
            />
          </label>
          {aggregationSelect('Denominator per unit', denominatorAggregation, setDenominatorAggregation)}
        </div>
      )}
      <div className="row-fields">
        <label className="field">
          <span className="field-label">Window (hours)</span>
          <input
            type="number"
            min="0"
            step="any"
            value={windowHours}
            onChange={(e) => setWindowHours(e.target.value)}
            placeholder="every event after exposure"
          />
        </label>
        <label className="field">
          <span className="field-label">Cap per unit</span>
          <input type="number" min="0" step="any" value={cap} onChange={(e) => setCap(e.target.value)} placeholder="none" />
        </label>
      </div>
      <label className="checkbox">
        <input type="checkbox" checked={higherIsBetter} onChange={(e) => setHigherIsBetter(e.target.checked)} /> Higher is better (clear it
        for errors, latency, churn)
      </label>
    </CreateDialog>
  )
}
