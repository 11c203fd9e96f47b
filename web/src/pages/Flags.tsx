// Flag list: search, paging, an on/off switch per flag and per environment, and flag creation.
import { useMemo, useState, type FormEvent } from 'react'
import { useQuery } from '@tanstack/react-query'
import { api, keys, type Flag } from '../api'
import { Link, navigate, pathFor } from '../router'
import { useSession } from '../session'
import { preview, relativeTime, dateTime, valueType, parseJson, plural } from '../format'
import { useApiMutation } from '../mutations'
import { Dialog } from '../components/Dialog'
import { ErrorMessage } from '../components/ErrorMessage'
import { JsonEditor } from '../components/JsonEditor'
import { Pagination } from '../components/Pagination'
import { Empty, Loading, PageHeader, StatusPill } from '../components/State'
import { Switch } from '../components/Switch'

export function Flags() {
  const { can, project } = useSession()
  const flags = useQuery({ queryKey: keys.flags, queryFn: api.flags })
  const [search, setSearch] = useState('')
  const [page, setPage] = useState({ offset: 0, limit: 25 })
  const [creating, setCreating] = useState(false)
  const environments = project.data?.environments ?? []

  const filtered = useMemo(() => {
    const q = search.trim().toLowerCase()
    const all = flags.data ?? []
    return q ? all.filter((f) => f.key.toLowerCase().includes(q) || JSON.stringify(f.value).toLowerCase().includes(q)) : all
  }, [flags.data, search])
  const shown = filtered.slice(page.offset, page.offset + page.limit)

  const toggle = useApiMutation((v: { key: string; enabled: boolean }) => api.updateFlag(v.key, { enabled: v.enabled }), [keys.flags])
  const toggleEnv = useApiMutation(
    (v: { flag: Flag; env: string; enabled: boolean }) => {
      const o = v.flag.environments?.[v.env]
      return api.setFlagEnvironment(v.flag.key, v.env, o?.value !== undefined ? { enabled: v.enabled, value: o.value } : { enabled: v.enabled })
    },
    [keys.flags],
  )

  return (
    <>
      <PageHeader
        title="Flags"
        subtitle={flags.data ? plural(flags.data.length, 'flag') : 'Feature switches and their targeting'}
        actions={
          can.writeFlags && (
            <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>
              New flag
            </button>
          )
        }
      />
      <div className="toolbar">
        <label className="field search">
          <span className="sr-only">Search flags</span>
          <input
            type="search"
            placeholder="Search flags by key or value…"
            value={search}
            aria-label="Search flags"
            onChange={(e) => {
              setSearch(e.target.value)
              setPage({ ...page, offset: 0 })
            }}
          />
        </label>
      </div>
      <ErrorMessage error={toggle.error ?? toggleEnv.error} title="Could not switch the flag" />
      {flags.isLoading ? (
        <Loading label="Loading flags…" />
      ) : flags.isError ? (
        <ErrorMessage error={flags.error} title="Could not load flags" />
      ) : !flags.data?.length ? (
        <Empty title="No flags yet">
          {can.writeFlags ? (
            <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>
              Create your first flag
            </button>
          ) : (
            'Flags created by an admin appear here.'
          )}
        </Empty>
      ) : !filtered.length ? (
        <Empty title={`No flags match “${search}”`} />
      ) : (
        <>
          <div className="table-wrap">
            <table className="table responsive flags-table">
              <caption className="sr-only">Flags</caption>
              <thead>
                <tr>
                  <th scope="col">Flag</th>
                  <th scope="col">Type</th>
                  <th scope="col">Enabled</th>
                  {environments.length > 0 && <th scope="col">Environments</th>}
                  <th scope="col">Last change</th>
                </tr>
              </thead>
              <tbody>
                {shown.map((f) => (
                  <tr key={f.key}>
                    <td data-label="Flag">
                      <Link to={pathFor.flag(f.key)} className="row-title">
                        {f.key}
                      </Link>
                      <div className="muted small mono truncate">{preview(f.value)}</div>
                    </td>
                    <td data-label="Type">
                      <span className="badge">{valueType(f.value)}</span>
                    </td>
                    <td data-label="Enabled">
                      {can.writeFlags ? (
                        <Switch
                          checked={f.enabled}
                          label={`Enabled: ${f.key}`}
                          disabled={toggle.isPending && toggle.variables?.key === f.key}
                          onChange={(enabled) => toggle.mutate({ key: f.key, enabled })}
                        />
                      ) : (
                        <StatusPill on={f.enabled} />
                      )}
                    </td>
                    {environments.length > 0 && (
                      <td data-label="Environments">
                        <ul className="env-switches">
                          {environments.map((env) => {
                            const o = f.environments?.[env]
                            const on = o ? o.enabled : f.enabled
                            return (
                              <li key={env} title={o ? `${env}: overridden` : `${env}: follows the flag`}>
                                <span className={o ? 'env-name overridden' : 'env-name'}>{env}</span>
                                {can.writeFlags ? (
                                  <Switch
                                    checked={on}
                                    inherited={!o}
                                    label={`${env}: ${f.key}`}
                                    disabled={toggleEnv.isPending && toggleEnv.variables?.flag.key === f.key && toggleEnv.variables.env === env}
                                    onChange={(enabled) => toggleEnv.mutate({ flag: f, env, enabled })}
                                  />
                                ) : (
                                  <StatusPill on={on} />
                                )}
                              </li>
                            )
                          })}
                        </ul>
                      </td>
                    )}
                    <td data-label="Last change">
                      <time dateTime={f.updated_at} title={dateTime(f.updated_at)}>
                        {relativeTime(f.updated_at)}
                      </time>
                      <div className="muted small">v{f.version}</div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pagination offset={page.offset} limit={page.limit} total={filtered.length} onChange={(offset, limit) => setPage({ offset, limit })} label="Flag pages" />
        </>
      )}
      {creating && <CreateFlagDialog onClose={() => setCreating(false)} />}
    </>
  )
}

function CreateFlagDialog({ onClose }: { onClose: () => void }) {
  const [key, setKey] = useState('')
  const [valueText, setValueText] = useState('true')
  const [enabled, setEnabled] = useState(false)
  const create = useApiMutation(api.createFlag, [keys.flags], (res) => navigate(pathFor.flag(res.key)))
  const parsed = parseJson(valueText)
  const submit = (e: FormEvent) => {
    e.preventDefault()
    if (parsed.ok) create.mutate({ key: key.trim(), value: parsed.value, enabled })
  }
  return (
    <Dialog title="New flag" onClose={onClose}>
      <form onSubmit={submit} className="form">
        <label className="field">
          <span className="field-label">Key</span>
          <input value={key} onChange={(e) => setKey(e.target.value)} required pattern="[A-Za-z0-9][A-Za-z0-9._\-]{0,127}" placeholder="new-checkout" autoFocus className="mono" />
          <span className="hint">Letters, digits, dot, underscore and dash; up to 128 characters.</span>
        </label>
        <JsonEditor label="Value" value={valueText} onChange={setValueText} rows={2} hint="Returned when the flag is on and no rule changes it." />
        <label className="checkbox">
          <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} />
          Enabled right away
        </label>
        <ErrorMessage error={create.error} title="Could not create the flag" />
        <div className="form-actions">
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" disabled={!key.trim() || !parsed.ok || create.isPending}>
            {create.isPending ? 'Creating…' : 'Create flag'}
          </button>
        </div>
      </form>
    </Dialog>
  )
}
