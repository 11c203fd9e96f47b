// Config list and creation.
import { useMemo, useState, type FormEvent } from 'react'
import { useQuery } from '@tanstack/react-query'
import { api, keys } from '../api'
import { Link, navigate, pathFor } from '../router'
import { useSession } from '../session'
import { dateTime, parseJson, plural, preview, relativeTime, valueType } from '../format'
import { useApiMutation } from '../mutations'
import { Dialog } from '../components/Dialog'
import { ErrorMessage } from '../components/ErrorMessage'
import { JsonEditor } from '../components/JsonEditor'
import { Pagination } from '../components/Pagination'
import { Empty, Loading, PageHeader } from '../components/State'

export function Configs() {
  const { can } = useSession()
  const configs = useQuery({ queryKey: keys.configs, queryFn: api.configs })
  const [search, setSearch] = useState('')
  const [page, setPage] = useState({ offset: 0, limit: 25 })
  const [creating, setCreating] = useState(false)
  const filtered = useMemo(() => {
    const q = search.trim().toLowerCase()
    return (configs.data ?? []).filter((c) => !q || c.key.toLowerCase().includes(q))
  }, [configs.data, search])
  const shown = filtered.slice(page.offset, page.offset + page.limit)

  return (
    <>
      <PageHeader
        title="Configs"
        subtitle={configs.data ? plural(configs.data.length, 'config') : 'JSON configuration values per environment'}
        actions={
          can.writeConfigs && (
            <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>
              New config
            </button>
          )
        }
      />
      <div className="toolbar">
        <label className="field search">
          <span className="sr-only">Search configs</span>
          <input type="search" placeholder="Search configs by key…" aria-label="Search configs" value={search} onChange={(e) => (setSearch(e.target.value), setPage({ ...page, offset: 0 }))} />
        </label>
      </div>
      {configs.isLoading ? (
        <Loading label="Loading configs…" />
      ) : configs.isError ? (
        <ErrorMessage error={configs.error} title="Could not load configs" />
      ) : !configs.data?.length ? (
        <Empty title="No configs yet">
          {can.writeConfigs ? (
            <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>
              Create your first config
            </button>
          ) : (
            'Configs created by an admin appear here.'
          )}
        </Empty>
      ) : !filtered.length ? (
        <Empty title={`No configs match “${search}”`} />
      ) : (
        <>
          <div className="table-wrap">
            <table className="table responsive">
              <caption className="sr-only">Configs</caption>
              <thead>
                <tr>
                  <th scope="col">Config</th>
                  <th scope="col">Type</th>
                  <th scope="col">Environment overrides</th>
                  <th scope="col">Last change</th>
                </tr>
              </thead>
              <tbody>
                {shown.map((c) => (
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
                    <td data-label="Last change">
                      <time dateTime={c.updated_at} title={dateTime(c.updated_at)}>
                        {relativeTime(c.updated_at)}
                      </time>
                      <div className="muted small">v{c.version}</div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pagination offset={page.offset} limit={page.limit} total={filtered.length} onChange={(offset, limit) => setPage({ offset, limit })} label="Config pages" />
        </>
      )}
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
        <ErrorMessage error={create.error} title="Could not create the config" />
        <div className="form-actions">
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" disabled={!key.trim() || !parsed.ok || create.isPending}>
            {create.isPending ? 'Creating…' : 'Create config'}
          </button>
        </div>
      </form>
    </Dialog>
  )
}
