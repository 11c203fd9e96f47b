// The experiments of the project (docs/experiments.md): state, flag, environment, units, days running and
// the decision, filtered by state; "New experiment" opens the form that sets one up on a flag with a split.
import { useState } from 'react'
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import type { PageParams } from '../../api'
import { experimentKeys, experimentsApi, type Experiment, type ExperimentState } from '../../experiments-api'
import { daysRunning, formatNumber } from '../../experiment-view'
import { Link, pathFor } from '../../router'
import { useSession } from '../../session'
import { plural } from '../../format'
import { DataTable } from '../../components/DataTable'
import { ListStates } from '../../components/ListStates'
import { Empty, PageHeader } from '../../components/State'
import { NewExperimentDialog } from './NewExperiment'
import { decisionText, experimentPath, StatePill } from './parts'

const STATES: { value: ExperimentState | undefined; label: string }[] = [
  { value: undefined, label: 'All' },
  { value: 'running', label: 'Running' },
  { value: 'draft', label: 'Draft' },
  { value: 'stopped', label: 'Stopped' },
]

export function Experiments() {
  const { can } = useSession()
  const [state, setState] = useState<ExperimentState | undefined>(undefined)
  const [page, setPage] = useState<PageParams>({ offset: 0, limit: 25 })
  const [creating, setCreating] = useState(false)
  const query = useQuery({
    queryKey: experimentKeys.page(state, page),
    queryFn: () => experimentsApi.experimentPage(state, page),
    placeholderData: keepPreviousData,
  })
  const newButton = (label: string) => (
    <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>
      {label}
    </button>
  )
  return (
    <>
      <PageHeader
        title="Experiments"
        subtitle={query.data ? plural(query.data.total, state ? `${state} experiment` : 'experiment') : 'Measure whether a variant helps'}
        actions={can.writeFlags && newButton('New experiment')}
      />
      <nav className="tabs" aria-label="Experiment states">
        {STATES.map((s) => (
          <button
            key={s.label}
            type="button"
            className={s.value === state ? 'tab active' : 'tab'}
            aria-pressed={s.value === state}
            onClick={() => {
              setState(s.value)
              setPage((p) => ({ ...p, offset: 0 }))
            }}
          >
            {s.label}
          </button>
        ))}
      </nav>
      <ListStates
        query={query}
        what="the experiments"
        none={(d) => d.items.length === 0}
        empty={
          <Empty title={state ? `No ${state} experiments` : 'No experiments yet'}>
            <p>An experiment splits a flag's units between variants and compares them on the metrics you choose.</p>
            {can.writeFlags && !state && newButton('Set up your first experiment')}
          </Empty>
        }
        paging={{ page, total: (d) => d.total, onChange: setPage, label: 'Experiment pages' }}
      >
        {({ items }) => (
          <DataTable
            caption="Experiments"
            className="experiments-table"
            columns={['Experiment', 'State', 'Flag', 'Environment', 'Units', 'Days running', 'Decision']}
          >
            {items.map((e) => (
              <ExperimentRow key={e.key} e={e} />
            ))}
          </DataTable>
        )}
      </ListStates>
      {creating && <NewExperimentDialog onClose={() => setCreating(false)} />}
    </>
  )
}

function ExperimentRow({ e }: { e: Experiment }) {
  const days = daysRunning(e)
  return (
    <tr>
      <td data-label="Experiment">
        <Link to={experimentPath(e.key)} className="row-title">
          {e.name}
        </Link>
        <div className="muted small mono">{e.key}</div>
      </td>
      <td data-label="State">
        <StatePill state={e.state} />
      </td>
      <td data-label="Flag">
        <Link to={pathFor.flag(e.flag)} className="mono">
          {e.flag}
        </Link>
      </td>
      <td data-label="Environment">{e.environment}</td>
      <td data-label="Units">{e.state === 'draft' ? <span className="muted">—</span> : <UnitsCell experiment={e.key} />}</td>
      <td data-label="Days running">{days === null ? <span className="muted">—</span> : days}</td>
      <td data-label="Decision">{decisionText(e)}</td>
    </tr>
  )
}

/** The units of the current phase (counted without computing the results). */
function UnitsCell({ experiment }: { experiment: string }) {
  const count = useQuery({ queryKey: experimentKeys.units(experiment), queryFn: () => experimentsApi.units(experiment), staleTime: 30_000 })
  if (count.isPending) return <span className="muted">…</span>
  if (!count.data)
    return (
      <span className="muted" title="Could not read the units">
        ?
      </span>
    )
  const units = count.data.units
  const total = Object.values(units).reduce((s, n) => s + n, 0)
  return (
    <span
      title={Object.entries(units)
        .map(([v, n]) => `${v}: ${n}`)
        .join(', ')}
    >
      {formatNumber(total)}
    </span>
  )
}
