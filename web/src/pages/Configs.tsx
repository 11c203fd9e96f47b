// Config list and creation.
import { useState, type FormEvent } from 'react'
import { api, keys } from '../api'
import { Link, navigate, pathFor } from '../router'
import { useSession } from '../session'
import { configQueries, usePagedList } from '../queries'
import { parseJson, plural, preview, valueType } from '../format'
import { useApiMutation } from '../mutations'
import { DataTable, LastChangeCell } from '../components/DataTable'
import { Dialog } from '../components/Dialog'
import { FormActions } from '../components/FormActions'
import { JsonEditor } from '../components/JsonEditor'
import { SearchableList } from '../components/SearchableList'
import { Empty, PageHeader } from '../components/State'

export function Configs() {
  const { can } = useSession()
  const list = usePagedList({
    queries: configQueries,
    matches: (c, q) => c.key.toLowerCase().includes(q),
  })
  const [creating, setCreating] = useState(false)

  return (
    <>
      <PageHeader
        title="Configs"
        subtitle={list.count !== undefined ? plural(list.count, 'config') : 'JSON configuration values per environment'}
        actions={
          can.writeConfigs && (
            <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>
              New config
            </button>
          )
        }
      />
      <SearchableList
        list={list}
        noun={{ one: 'config', many: 'configs' }}
        searchPlaceholder="Search configs by key…"
        empty={
          <Empty title="No configs yet">
            {can.writeConfigs ? (
              <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>
                Create your first config
              </button>
            ) : (
              'Configs created by an admin appear here.'
            )}
          </Empty>
        }
      >
        {(rows) => (
          <DataTable caption="Configs" columns={['Config', 'Type', 'Environment overrides', 'Last change']}>
            {rows.map((c) => (
              <tr key={c.key}>
                <td data-label="Config">
                  <Link to={pathFor.config(c.key)} className="row-title">
                    {c.key}
                  </Link>
                  <div className="muted small mono truncate">{preview(c.value, 64)}</div>
                </td>
                <td data-label="Type">
                  <span className="badge">{valueType(c.value)}</span>
                </td>
                <td data-label="Environment overrides">
                  {Object.keys(c.environments ?? {}).length ? (
                    <ul className="chips">
                      {Object.keys(c.environments).map((env) => (
                        <li key={env} className="chip">
                          {env}
                        </li>
                      ))}
                    </ul>
                  ) : (
                    <span className="muted">none</span>
                  )}
                </td>
                <LastChangeCell doc={c} />
              </tr>
            ))}
          </DataTable>
        )}
      </SearchableList>
      {creating && <CreateConfigDialog onClose={() => setCreating(false)} />}
    </>
  )
}

function CreateConfigDialog({ onClose }: { onClose: () => void }) {
  const [key, setKey] = useState('')
  const [valueText, setValueText] = useState('{\n  \n}')
  const create = useApiMutation(api.createConfig, [keys.configs], (res) => navigate(pathFor.config(res.key)))
  const parsed = parseJson(valueText)
  const submit = (e: FormEvent) => {
    e.preventDefault()
    if (parsed.ok) create.mutate({ key: key.trim(), value: parsed.value })
  }
  return (
    <Dialog title="New config" onClose={onClose}>
      <form onSubmit={submit} className="form">
        <label className="field">
          <span className="field-label">Key</span>
          <input value={key} onChange={(e) => setKey(e.target.value)} required placeholder="checkout.limits" autoFocus className="mono" />
        </label>
        <JsonEditor label="Value" value={valueText} onChange={setValueText} rows={6} />
        <FormActions mutation={create} errorTitle="Could not create the config" label="Create config" pendingLabel="Creating…" disabled={!key.trim() || !parsed.ok} onCancel={onClose} />
      </form>
    </Dialog>
  )
}
