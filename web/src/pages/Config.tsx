// One config: its JSON value and per-environment values, saved with If-Match; delete.
import { useState, type FormEvent } from 'react'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { api, keys, type Config, type Json } from '../api'
import { Link, navigate } from '../router'
import { useSession } from '../session'
import { dateTime, parseJson, relativeTime, toJsonText, valueType } from '../format'
import { useApiMutation } from '../mutations'
import { ConfirmDialog } from '../components/ConfirmDialog'
import { changedFields, useVersionedSave } from '../components/ConflictDialog'
import { ErrorMessage } from '../components/ErrorMessage'
import { JsonEditor } from '../components/JsonEditor'
import { SaveBar } from '../components/SaveBar'
import { Empty, Loading, PageHeader } from '../components/State'

interface ConfigDraft { valueText: string; envs: Record<string, { overridden: boolean; valueText: string }> }
type ConfigDoc = Config & Record<string, unknown>

function toDraft(c: Config, environments: string[]): ConfigDraft {
  const envs: ConfigDraft['envs'] = {}
  for (const env of new Set([...environments, ...Object.keys(c.environments ?? {})])) {
    const o = c.environments?.[env]
    envs[env] = { overridden: !!o, valueText: toJsonText(o ? o.value : c.value) }
  }
  return { valueText: toJsonText(c.value), envs }
}

function fromDraft(d: ConfigDraft): { ok: true; body: Pick<Config, 'value' | 'environments'> } | { ok: false; problems: string[] } {
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
  return problems.length ? { ok: false, problems } : { ok: true, body: { value: (v as { value: Json }).value, environments } }
}

export function ConfigPage({ configKey }: { configKey: string }) {
  const { can, project } = useSession()
  const qc = useQueryClient()
  const configs = useQuery({ queryKey: keys.configs, queryFn: api.configs })
  const config = configs.data?.find((c) => c.key === configKey)
  const [deleting, setDeleting] = useState(false)
  const del = useApiMutation(() => api.deleteConfig(configKey), [keys.configs], () => navigate('/configs'))

  if (configs.isLoading || project.isLoading) return <Loading label="Loading config…" />
  if (configs.isError) return <ErrorMessage error={configs.error} title="Could not load the config" />
  if (!config) {
    return (
      <Empty title={`Config “${configKey}” was not found`}>
        <Link to="/configs">Back to configs</Link>
      </Empty>
    )
  }
  return (
    <>
      <PageHeader
        back={<Link to="/configs">← Configs</Link>}
        title={<span className="mono">{config.key}</span>}
        subtitle={
          <>
            <span className="badge">{valueType(config.value)}</span> version {config.version} · changed{' '}
            <time dateTime={config.updated_at} title={dateTime(config.updated_at)}>
              {relativeTime(config.updated_at)}
            </time>
          </>
        }
        actions={
          can.writeConfigs && (
            <button type="button" className="btn btn-danger-outline" onClick={() => setDeleting(true)}>
              Delete config
            </button>
          )
        }
      />
      {can.writeConfigs ? (
        <ConfigEditor
          config={config}
          environments={project.data?.environments ?? []}
          refetch={async () => (await qc.fetchQuery({ queryKey: keys.configs, queryFn: api.configs, staleTime: 0 })).find((c) => c.key === configKey) as ConfigDoc | undefined}
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
      {deleting && (
        <ConfirmDialog title={`Delete config “${config.key}”?`} confirmLabel="Delete config" onConfirm={() => del.mutate()} onCancel={() => setDeleting(false)} pending={del.isPending} error={del.error}>
          <p>Applications reading this config will get “not found”. This cannot be undone.</p>
        </ConfirmDialog>
      )}
    </>
  )
}

function ConfigEditor({ config, environments, refetch }: { config: Config; environments: string[]; refetch: () => Promise<ConfigDoc | undefined> }) {
  const [base, setBase] = useState<Config | null>(null)
  const [draft, setDraft] = useState<ConfigDraft | null>(null)
  const built = draft ? fromDraft(draft) : null
  const patch = base && built?.ok ? changedFields({ value: base.value, environments: base.environments ?? {} }, built.body) : {}
  const dirty = !!built && (!built.ok || Object.keys(patch).length > 0)
  if (!base || (config.version !== base.version && !dirty)) {
    setBase(config)
    setDraft(toDraft(config, environments))
  }
  const saver = useVersionedSave<ConfigDoc>({
    name: `Config “${config.key}”`,
    put: (p, version) => api.updateConfig(config.key, p, version),
    fetchCurrent: refetch,
    invalidate: [keys.configs],
    onSaved: () => setBase(null),
    onReload: (current) => {
      if (!current) return navigate('/configs')
      setBase(current)
      setDraft(toDraft(current, environments))
    },
  })
  if (!base || !draft) return null
  const setEnv = (env: string, p: Partial<ConfigDraft['envs'][string]>) => setDraft({ ...draft, envs: { ...draft.envs, [env]: { ...draft.envs[env], ...p } } })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    if (built?.ok && Object.keys(patch).length) saver.save(patch, base as ConfigDoc)
  }
  return (
    <form className="form" onSubmit={submit} aria-label="Edit config">
      {config.version !== base.version && (
        <div className="alert alert-warning" role="status">
          Someone saved version {config.version} while you were editing. Saving will ask how to merge.
        </div>
      )}
      <section className="card">
        <h2 className="card-title">Value</h2>
        <JsonEditor label="Value" value={draft.valueText} onChange={(valueText) => setDraft({ ...draft, valueText })} rows={8} />
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
      <SaveBar dirty={dirty} problems={built && !built.ok ? built.problems : []} pending={saver.pending} error={saver.error} onDiscard={() => setDraft(toDraft(base, environments))} />
      {saver.dialog}
    </form>
  )
}
