// One config: its JSON value and per-environment values, saved with If-Match; delete.
import { api, keys, type Config, type Json } from '../api'
import { Link, navigate } from '../router'
import { useSession } from '../session'
import { configQueries, isNotFound, useResource } from '../queries'
import { parseJson, toJsonText, valueType } from '../format'
import { ConfirmDialog, useConfirmAction } from '../components/ConfirmDialog'
import { DocumentForm, VersionStamp, useDocumentEditor, type Built } from '../components/DocumentEditor'
import { JsonEditor } from '../components/JsonEditor'
import { Loaded } from '../components/Loaded'
import { Loading, PageHeader } from '../components/State'

interface ConfigDraft {
  valueText: string
  envs: Record<string, { overridden: boolean; valueText: string }>
  clientSide: boolean
}
type ConfigBody = Pick<Config, 'value' | 'environments'> & { client_side: boolean }

function toDraft(c: Config, environments: string[]): ConfigDraft {
  const envs: ConfigDraft['envs'] = {}
  for (const env of new Set([...environments, ...Object.keys(c.environments ?? {})])) {
    const o = c.environments?.[env]
    envs[env] = { overridden: !!o, valueText: toJsonText(o ? o.value : c.value) }
  }
  return { valueText: toJsonText(c.value), envs, clientSide: c.client_side === true }
}

function fromDraft(d: ConfigDraft): Built<ConfigBody> {
  const problems: string[] = []
  const v = parseJson(d.valueText)
  if (!v.ok) problems.push(`Value: ${v.error}`)
  const environments: Config['environments'] = {}
  for (const [env, e] of Object.entries(d.envs)) {
    if (!e.overridden) continue
    const r = parseJson(e.valueText)
    if (!r.ok) problems.push(`${env}: ${r.error}`)
    else environments[env] = { value: r.value }
  }
  return problems.length
    ? { ok: false, problems }
    : { ok: true, body: { value: (v as { value: Json }).value, environments, client_side: d.clientSide } }
}

export function ConfigPage({ configKey }: { configKey: string }) {
  const { can, project } = useSession()
  const { query, fetchCurrent } = useResource(configQueries.detail(configKey))
  const del = useConfirmAction(
    () => api.deleteConfig(configKey),
    [keys.configs],
    () => navigate('/configs', { force: true }),
  )

  if (project.isLoading) return <Loading label="Loading config…" />
  return (
    <Loaded query={query} what="config" name={configKey} back={{ to: '/configs', label: 'Back to configs' }}>
      {(config) => (
        <>
          <PageHeader
            back={<Link to="/configs">← Configs</Link>}
            title={<span className="mono">{config.key}</span>}
            subtitle={
              <>
                <span className="badge">{valueType(config.value)}</span> <VersionStamp doc={config} />
              </>
            }
            actions={
              can.writeConfigs &&
              !isNotFound(query.error) && (
                <button type="button" className="btn btn-danger-outline" onClick={() => del.ask(config.key)}>
                  Delete config
                </button>
              )
            }
          />
          {can.writeConfigs ? (
            <ConfigEditor
              config={config}
              environments={project.data?.environments ?? []}
              fetchCurrent={fetchCurrent}
              deleted={isNotFound(query.error)}
            />
          ) : (
            <div className="form">
              <div className="alert alert-info" role="status">
                Read-only: this token can read configs but not change them.
              </div>
              <section className="card">
                <h2 className="card-title">Value</h2>
                <pre className="code">{toJsonText(config.value)}</pre>
              </section>
              {Object.entries(config.environments ?? {}).map(([env, o]) => (
                <section className="card" key={env}>
                  <h2 className="card-title">Value in {env}</h2>
                  <pre className="code">{toJsonText(o.value)}</pre>
                </section>
              ))}
            </div>
          )}
          {del.target !== null && (
            <ConfirmDialog title={`Delete config “${config.key}”?`} confirmLabel="Delete config" {...del.dialogProps}>
              <p>Applications reading this config will get “not found”. This cannot be undone.</p>
            </ConfirmDialog>
          )}
        </>
      )}
    </Loaded>
  )
}

function ConfigEditor({
  config,
  environments,
  fetchCurrent,
  deleted,
}: {
  config: Config
  environments: string[]
  fetchCurrent: () => Promise<Config | undefined>
  deleted: boolean
}) {
  const { draft, base, setDraft, form } = useDocumentEditor({
    resource: { type: 'config', key: config.key },
    doc: config,
    deleted,
    name: `Config “${config.key}”`,
    toDraft: (c: Config) => toDraft(c, environments),
    build: fromDraft,
    bodyOf: (c: Config): ConfigBody => ({ value: c.value, environments: c.environments ?? {}, client_side: c.client_side === true }),
    put: async (p, version) => (await api.updateConfig(config.key, p, version)).config,
    fetchCurrent,
    invalidate: [keys.configs],
    listPath: '/configs',
  })
  if (!base || !draft) return null
  const setEnv = (env: string, p: Partial<ConfigDraft['envs'][string]>) =>
    setDraft({ ...draft, envs: { ...draft.envs, [env]: { ...draft.envs[env], ...p } } })
  return (
    <DocumentForm form={form} label="Edit config">
      <section className="card">
        <h2 className="card-title">Value</h2>
        <JsonEditor label="Value" value={draft.valueText} onChange={(valueText) => setDraft({ ...draft, valueText })} rows={8} />
        <label className="checkbox">
          <input type="checkbox" checked={draft.clientSide} onChange={(e) => setDraft({ ...draft, clientSide: e.target.checked })} />
          <span>
            Available to client keys
            <span className="muted small block">Pages and apps holding a client key may read this config.</span>
          </span>
        </label>
      </section>
      <section className="card">
        <h2 className="card-title">Environments</h2>
        <p className="hint">An environment value replaces the config’s value when read with that environment.</p>
        <ul className="env-list">
          {Object.entries(draft.envs).map(([env, e]) => (
            <li key={env} className="env-row">
              <label className="checkbox env-toggle">
                <input type="checkbox" checked={e.overridden} onChange={(ev) => setEnv(env, { overridden: ev.target.checked })} />
                Override in <strong>{env}</strong>
              </label>
              {e.overridden ? (
                <div className="env-detail">
                  <JsonEditor label={`Value in ${env}`} value={e.valueText} onChange={(valueText) => setEnv(env, { valueText })} rows={4} />
                </div>
              ) : (
                <span className="muted small">Uses the config’s value</span>
              )}
            </li>
          ))}
        </ul>
      </section>
    </DocumentForm>
  )
}
