// Flag list: search, paging, an on/off switch per flag and per environment (sent with If-Match), each flag's
// last 24 hours of usage and last evaluation, and flag creation. The stale flags are the other tab (/stale).
import { useState, type ReactNode } from 'react'
import { useQuery, type UseQueryResult } from '@tanstack/react-query'
import type { UsageSeries } from '../usage-series'
import { api, keys, type Flag } from '../api'
import { navigate, pathFor } from '../router'
import { useSession } from '../session'
import { filteredFlagQueries, flagQueries, usageQueries, usePagedList } from '../queries'
import { preview, valueType, parseJson } from '../format'
import { useApiMutation } from '../mutations'
import { CreateDialog, KeyField } from '../components/CreateDialog'
import { DataTable, KeyCell, LastChangeCell } from '../components/DataTable'
import { JsonEditor } from '../components/JsonEditor'
import { ListPage } from '../components/ListPage'
import { Empty, StatusPill } from '../components/State'
import { Switch } from '../components/Switch'
import { FlagTabs } from './flags/FlagTabs'
import { useFlagSwitches, type FlagSwitches } from './flags/FlagSwitches'
import { LastEvaluatedCell, UsageCell } from './flags/UsageCells'
import { TagFilter } from './flags/TagFilter'

export function Flags({ archived = false }: { archived?: boolean }) {
  const { can, project } = useSession()
  const [tags, setTags] = useState<string[]>([])
  const filtered = archived || tags.length > 0
  const list = usePagedList({
    queries: filtered ? filteredFlagQueries({ tags, archived }) : flagQueries,
    matches: (f, q) =>
      f.key.toLowerCase().includes(q) ||
      (f.description ?? '').toLowerCase().includes(q) ||
      JSON.stringify(f.value).toLowerCase().includes(q),
  })
  const switches = useFlagSwitches()
  const environments = project.data?.environments ?? []

  return (
    <ListPage
      title="Flags"
      noun={{ one: 'flag', many: 'flags' }}
      about="Feature switches and their targeting"
      list={list}
      searchPlaceholder="Search flags by key, description or value…"
      canCreate={can.writeEverywhere}
      readOnlyText="Flags created by an admin appear here."
      createDialog={(close) => <CreateFlagDialog onClose={close} />}
      empty={
        filtered ? (
          <Empty title={archived ? 'No archived flags' : 'No flag has these tags'}>
            {archived ? 'Archived flags are listed here until restored or deleted.' : 'Remove a tag to see more.'}
          </Empty>
        ) : undefined
      }
      above={
        <>
          <FlagTabs current={archived ? '/archived' : '/'} />
          <TagFilter selected={tags} onChange={setTags} seen={list.rows.flatMap((f) => f.tags ?? [])} />
        </>
      }
      notice={switches.notice}
    >
      {(rows) => (
        <FlagRows rows={rows}>
          {(usage) => (
            <DataTable
              caption="Flags"
              className="flags-table"
              columns={[
                'Flag',
                'Type',
                'Enabled',
                ...(environments.length ? ['Environments'] : []),
                'Last 24 h',
                'Last evaluated',
                'Last change',
              ]}
            >
              {rows.map((f) => (
                <tr key={f.key}>
                  <KeyCell label="Flag" to={pathFor.flag(f.key)} name={f.key}>
                    <div className="muted small mono truncate">{preview(f.value)}</div>
                    {f.tags && f.tags.length > 0 && (
                      <div className="chips-inline">
                        {f.tags.map((t) => (
                          <button
                            key={t}
                            type="button"
                            className="chip chip-button"
                            aria-label={`Filter by tag ${t}`}
                            onClick={() => !tags.includes(t) && setTags([...tags, t])}
                          >
                            {t}
                          </button>
                        ))}
                      </div>
                    )}
                  </KeyCell>
                  <td data-label="Type">
                    <span className="badge">{valueType(f.value)}</span>
                  </td>
                  <td data-label="Enabled">
                    {can.writeEverywhere ? (
                      <Switch
                        checked={f.enabled}
                        label={`Enabled: ${f.key}`}
                        disabled={switches.busy(f.key)}
                        onChange={(enabled) => switches.flip(f, enabled)}
                      />
                    ) : (
                      <StatusPill on={f.enabled} />
                    )}
                  </td>
                  {environments.length > 0 && (
                    <td data-label="Environments">
                      <EnvironmentSwitches flag={f} environments={environments} switches={switches} />
                    </td>
                  )}
                  <UsageCell flagKey={f.key} usage={usage} />
                  <LastEvaluatedCell flag={f} />
                  <LastChangeCell doc={f} />
                </tr>
              ))}
            </DataTable>
          )}
        </FlagRows>
      )}
    </ListPage>
  )
}

/** A row's switch per environment: its own, or (unswitched) following the main switch. */
function EnvironmentSwitches({ flag: f, environments, switches }: { flag: Flag; environments: string[]; switches: FlagSwitches }) {
  const { can } = useSession()
  return (
    <ul className="env-switches">
      {environments.map((env) => {
        const o = f.environments?.[env]
        const on = o ? o.enabled : f.enabled
        return (
          <li key={env} title={o ? `${env}: its own switch` : `${env}: follows the main switch (switching gives ${env} its own)`}>
            <span className={o ? 'env-name overridden' : 'env-name'}>{env}</span>
            {can.writeEnv(env) ? (
              <Switch
                checked={on}
                inherited={!o}
                label={`${env}: ${f.key}`}
                disabled={switches.busy(f.key)}
                onChange={(enabled) => switches.flip(f, enabled, env)}
              />
            ) : (
              <StatusPill on={on} />
            )}
            {!o && <span className="follows">follows</span>}
          </li>
        )
      })}
    </ul>
  )
}

/** The usage of the rows shown, read once for all of them (a render prop: hooks cannot run in the list's callback). */
function FlagRows({ rows, children }: { rows: readonly Flag[]; children: (usage: UseQueryResult<Map<string, UsageSeries>>) => ReactNode }) {
  return <>{children(useQuery(usageQueries.sparklines(rows.map((f) => f.key))))}</>
}

function CreateFlagDialog({ onClose }: { onClose: () => void }) {
  const [key, setKey] = useState('')
  const [valueText, setValueText] = useState('true')
  const [enabled, setEnabled] = useState(false)
  const create = useApiMutation(api.createFlag, [keys.flags], (res) => navigate(pathFor.flag(res.key)))
  const parsed = parseJson(valueText)
  return (
    <CreateDialog
      noun="flag"
      mutation={create}
      onClose={onClose}
      disabled={!key.trim() || !parsed.ok}
      onSubmit={() => parsed.ok && create.mutate({ key: key.trim(), value: parsed.value, enabled })}
    >
      <KeyField
        value={key}
        onChange={setKey}
        pattern="[A-Za-z0-9][A-Za-z0-9._\-]{0,127}"
        placeholder="new-checkout"
        hint="Letters, digits, dot, underscore and dash; up to 128 characters."
      />
      <JsonEditor
        label="Value"
        value={valueText}
        onChange={setValueText}
        rows={2}
        hint="Returned when the flag is on and no rule changes it."
      />
      <label className="checkbox">
        <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} />
        Enabled right away
      </label>
    </CreateDialog>
  )
}
