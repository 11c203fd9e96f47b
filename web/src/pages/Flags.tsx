// Flag list: search, paging, an on/off switch per flag and per environment (sent with If-Match), each flag's
// last 24 hours of usage and last evaluation, and flag creation. The stale flags are the other tab (/stale).
import { useState, type FormEvent, type ReactNode } from 'react'
import { useMutation, useQuery, useQueryClient, type UseQueryResult } from '@tanstack/react-query'
import type { UsageSeries } from '../usage-series'
import { ApiError, api, keys, type Flag } from '../api'
import { Link, navigate, pathFor } from '../router'
import { useSession } from '../session'
import { filteredFlagQueries, flagQueries, usageQueries, usePagedList } from '../queries'
import { preview, valueType, parseJson, plural } from '../format'
import { useApiMutation } from '../mutations'
import { DataTable, LastChangeCell } from '../components/DataTable'
import { Dialog } from '../components/Dialog'
import { ErrorMessage } from '../components/ErrorMessage'
import { FormActions } from '../components/FormActions'
import { JsonEditor } from '../components/JsonEditor'
import { SearchableList } from '../components/SearchableList'
import { Empty, PageHeader, StatusPill } from '../components/State'
import { Switch } from '../components/Switch'
import { FlagTabs } from './flags/FlagTabs'
import { LastEvaluatedCell, UsageCell } from './flags/UsageCells'
import { TagFilter } from './flags/TagFilter'

export function Flags({ archived = false }: { archived?: boolean }) {
  const { can, project } = useSession()
  const [tags, setTags] = useState<string[]>([])
  const filtered = archived || tags.length > 0
  const list = usePagedList({
    queries: filtered ? filteredFlagQueries({ tags, archived }) : flagQueries,
    matches: (f, q) => f.key.toLowerCase().includes(q) || (f.description ?? '').toLowerCase().includes(q) || JSON.stringify(f.value).toLowerCase().includes(q),
  })
  const [creating, setCreating] = useState(false)
  const switches = useFlagSwitches()
  const environments = project.data?.environments ?? []

  return (
    <>
      <PageHeader
        title="Flags"
        subtitle={list.count !== undefined ? plural(list.count, 'flag') : 'Feature switches and their targeting'}
        actions={
          can.writeEverywhere && (
            <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>
              New flag
            </button>
          )
        }
      />
      <FlagTabs current={archived ? '/archived' : '/'} />
      <TagFilter selected={tags} onChange={setTags} seen={list.rows.flatMap((f) => f.tags ?? [])} />
      <SearchableList
        list={list}
        noun={{ one: 'flag', many: 'flags' }}
        searchPlaceholder="Search flags by key, description or value…"
        notice={switches.notice}
        empty={
          filtered ? <Empty title={archived ? 'No archived flags' : 'No flag has these tags'}>{archived ? 'Archived flags are listed here until restored or deleted.' : 'Remove a tag to see more.'}</Empty> : <Empty title="No flags yet">
            {can.writeEverywhere ? (
              <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>
                Create your first flag
              </button>
            ) : (
              'Flags created by an admin appear here.'
            )}
          </Empty>
        }
      >
        {(rows) => (
          <FlagRows rows={rows}>{(usage) => (
          <DataTable caption="Flags" className="flags-table" columns={['Flag', 'Type', 'Enabled', ...(environments.length ? ['Environments'] : []), 'Last 24 h', 'Last evaluated', 'Last change']}>
            {rows.map((f) => (
              <tr key={f.key}>
                <td data-label="Flag">
                  <Link to={pathFor.flag(f.key)} className="row-title">
                    {f.key}
                  </Link>
                  <div className="muted small mono truncate">{preview(f.value)}</div>
                  {f.tags && f.tags.length > 0 && (
                    <div className="chips-inline">
                      {f.tags.map((t) => (
                        <button key={t} type="button" className="chip chip-button" aria-label={`Filter by tag ${t}`} onClick={() => !tags.includes(t) && setTags([...tags, t])}>
                          {t}
                        </button>
                      ))}
                    </div>
                  )}
                </td>
                <td data-label="Type">
                  <span className="badge">{valueType(f.value)}</span>
                </td>
                <td data-label="Enabled">
                  {can.writeEverywhere ? (
                    <Switch checked={f.enabled} label={`Enabled: ${f.key}`} disabled={switches.busy(f.key)} onChange={(enabled) => switches.flip(f, enabled)} />
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
                            {can.writeEnv(env) ? (
                              <Switch checked={on} inherited={!o} label={`${env}: ${f.key}`} disabled={switches.busy(f.key)} onChange={(enabled) => switches.flip(f, enabled, env)} />
                            ) : (
                              <StatusPill on={on} />
                            )}
                          </li>
                        )
                      })}
                    </ul>
                  </td>
                )}
                <UsageCell flagKey={f.key} usage={usage} />
                <LastEvaluatedCell flag={f} />
                <LastChangeCell doc={f} />
              </tr>
            ))}
          </DataTable>
          )}</FlagRows>
        )}
      </SearchableList>
      {creating && <CreateFlagDialog onClose={() => setCreating(false)} />}
    </>
  )
}

/** The usage of the rows shown, read once for all of them (a render prop: hooks cannot run in the list's callback). */
function FlagRows({ rows, children }: { rows: readonly Flag[]; children: (usage: UseQueryResult<Map<string, UsageSeries>>) => ReactNode }) {
  return <>{children(useQuery(usageQueries.sparklines(rows.map((f) => f.key))))}</>
}

// ---- the list's switches ----

interface Flip {
  flag: Flag
  enabled: boolean
  /** the environment whose override is switched; none: the flag itself */
  env?: string
}

const onOff = (on: boolean) => (on ? 'on' : 'off')

/** Sends what a switch asks for, at the version its row shows: the flag's own switch through the flag update,
 *  an environment's through PUT /flags/:key/environments/:env (keeping that override's value, if any). */
function send({ flag, enabled, env }: Flip) {
  if (env === undefined) return api.updateFlag(flag.key, { enabled }, flag.version)
  const o = flag.environments?.[env]
  return api.putFlagOverride(flag.key, env, o?.value !== undefined ? { enabled, value: o.value } : { enabled }, flag.version)
}

/** Why a switch was refused, in words, from the flag as the server has it now (null: deleted). */
function explainRefusal({ flag, enabled, env }: Flip, now: Flag | null): string {
  const wanted = env === undefined ? `switching it ${onOff(enabled)}` : `switching it ${onOff(enabled)} in ${env}`
  if (!now) return `Flag “${flag.key}” was deleted by someone else, so ${wanted} was not applied.`
  const o = env === undefined ? undefined : now.environments?.[env]
  const state = env === undefined ? `the flag is ${onOff(now.enabled)}` : `${env} is ${onOff(o ? o.enabled : now.enabled)}${o ? '' : ' (follows the flag)'}`
  return (
    `Flag “${flag.key}” was changed by someone else: it is at version ${now.version}, this list showed version ${flag.version}. ` +
    `${wanted[0].toUpperCase()}${wanted.slice(1)} was not applied; ${state} now. The row shows the current state: switch again if you still want the change.`
  )
}

/** Each switch sends If-Match with the version its row shows. On 409 (or 404) nothing is written: the notice
 *  says what happened and the list is read again, so the row shows the server's state. */
function useFlagSwitches() {
  const qc = useQueryClient()
  const [busy, setBusy] = useState<ReadonlySet<string>>(new Set())
  const [refusal, setRefusal] = useState<string | null>(null)
  const mutation = useMutation({
    mutationFn: async (v: Flip): Promise<string | null> => {
      try {
        await send(v)
        return null
      } catch (e) {
        if (!(e instanceof ApiError) || !(e.isConflict || e.isNotFound)) throw e
        return explainRefusal(v, await api.flag(v.flag.key).catch(() => null))
      }
    },
    onMutate: (v) => {
      setRefusal(null)
      setBusy((b) => new Set(b).add(v.flag.key))
    },
    onSuccess: (why) => why && setRefusal(why),
    onSettled: async (_data, _error, v) => {
      await Promise.all([keys.flags, keys.audit].map((queryKey) => qc.invalidateQueries({ queryKey })))
      setBusy((b) => new Set([...b].filter((k) => k !== v.flag.key)))
    },
  })
  return {
    flip: (flag: Flag, enabled: boolean, env?: string) => mutation.mutate({ flag, enabled, env }),
    busy: (key: string) => busy.has(key),
    notice: (
      <>
        {refusal && (
          <div className="alert alert-warning" role="alert">
            <strong>Not switched.</strong> {refusal}{' '}
            <button type="button" className="btn-link" onClick={() => setRefusal(null)}>
              Dismiss
            </button>
          </div>
        )}
        <ErrorMessage error={mutation.error} title="Could not switch the flag" />
      </>
    ),
  }
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
        <FormActions mutation={create} errorTitle="Could not create the flag" label="Create flag" pendingLabel="Creating…" disabled={!key.trim() || !parsed.ok} onCancel={onClose} />
      </form>
    </Dialog>
  )
}
