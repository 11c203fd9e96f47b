// Config list and creation.
import { useState } from 'react'
import { api, keys } from '../api'
import { navigate, pathFor } from '../router'
import { useSession } from '../session'
import { configQueries, usePagedList } from '../queries'
import { parseJson, preview, valueType } from '../format'
import { useApiMutation } from '../mutations'
import { CreateDialog, KeyField } from '../components/CreateDialog'
import { DataTable, KeyCell, LastChangeCell } from '../components/DataTable'
import { JsonEditor } from '../components/JsonEditor'
import { ListPage } from '../components/ListPage'

export function Configs() {
  const { can } = useSession()
  const list = usePagedList({
    queries: configQueries,
    matches: (c, q) => c.key.toLowerCase().includes(q),
  })
  return (
    <ListPage
      title="Configs"
      noun={{ one: 'config', many: 'configs' }}
      about="JSON configuration values per environment"
      list={list}
      searchPlaceholder="Search configs by key…"
      canCreate={can.writeConfigs}
      readOnlyText="Configs created by an admin appear here."
      createDialog={(close) => <CreateConfigDialog onClose={close} />}
    >
      {(rows) => (
        <DataTable caption="Configs" columns={['Config', 'Type', 'Environment overrides', 'Last change']}>
          {rows.map((c) => (
            <tr key={c.key}>
              <KeyCell label="Config" to={pathFor.config(c.key)} name={c.key}>
                <div className="muted small mono truncate">{preview(c.value, 64)}</div>
              </KeyCell>
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
    </ListPage>
  )
}

function CreateConfigDialog({ onClose }: { onClose: () => void }) {
  const [key, setKey] = useState('')
  const [valueText, setValueText] = useState('{\n  \n}')
  const create = useApiMutation(api.createConfig, [keys.configs], (res) => navigate(pathFor.config(res.key)))
  const parsed = parseJson(valueText)
  return (
    <CreateDialog
      noun="config"
      mutation={create}
      onClose={onClose}
      disabled={!key.trim() || !parsed.ok}
      onSubmit={() => parsed.ok && create.mutate({ key: key.trim(), value: parsed.value })}
    >
      <KeyField value={key} onChange={setKey} placeholder="checkout.limits" />
      <JsonEditor label="Value" value={valueText} onChange={setValueText} rows={6} />
    </CreateDialog>
  )
}
