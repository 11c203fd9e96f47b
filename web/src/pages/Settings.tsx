// Project settings: name, slug and the environment list (removing one in use can be forced).
import { useState, type FormEvent } from 'react'
import { ApiError, api, keys, type Project } from '../api'
import { useSession } from '../session'
import { useApiMutation } from '../mutations'
import { ConfirmDialog, useConfirmAction } from '../components/ConfirmDialog'
import { ErrorMessage } from '../components/ErrorMessage'
import { FormActions } from '../components/FormActions'
import { Loading, PageHeader } from '../components/State'
import { PoliciesCard } from './changes/PoliciesCard'

export function Settings() {
  const { project } = useSession()
  if (project.isLoading) return <Loading label="Loading project…" />
  if (project.isError || !project.data) return <ErrorMessage error={project.error} title="Could not load the project" />
  return (
    <>
      <PageHeader
        title="Project settings"
        subtitle={
          <>
            Project id <code>{project.data.id}</code>
          </>
        }
      />
      <ProjectForm project={project.data} />
      <Environments project={project.data} />
      <PoliciesCard />
    </>
  )
}

function ProjectForm({ project }: { project: Project }) {
  const [name, setName] = useState(project.name)
  const [slug, setSlug] = useState(project.slug)
  const [saved, setSaved] = useState(false)
  const save = useApiMutation(api.updateProject, [keys.project], () => setSaved(true))
  const patch = { ...(name !== project.name && { name }), ...(slug !== project.slug && { slug }) }
  const dirty = Object.keys(patch).length > 0
  const submit = (e: FormEvent) => {
    e.preventDefault()
    setSaved(false)
    if (dirty) save.mutate(patch)
  }
  return (
    <section className="card">
      <h2 className="card-title">Project</h2>
      <form className="form" onSubmit={submit}>
        <div className="row-fields">
          <label className="field">
            <span className="field-label">Name</span>
            <input value={name} onChange={(e) => (setName(e.target.value), setSaved(false))} required maxLength={200} />
          </label>
          <label className="field">
            <span className="field-label">Slug</span>
            <input
              value={slug}
              onChange={(e) => (setSlug(e.target.value), setSaved(false))}
              required
              pattern="[a-z0-9][a-z0-9_\-]{0,62}"
              className="mono"
            />
            <span className="hint">Lowercase letters, digits, “-” and “_”.</span>
          </label>
        </div>
        <FormActions mutation={save} errorTitle="Could not save the project" label="Save project" pendingLabel="Saving…" disabled={!dirty}>
          {saved && !dirty && (
            <span className="muted" role="status">
              Saved.
            </span>
          )}
        </FormActions>
      </form>
    </section>
  )
}

function Environments({ project }: { project: Project }) {
  const [name, setName] = useState('')
  const add = useApiMutation(api.addEnvironment, [keys.project], () => setName(''))
  const remove = useConfirmAction(
    (env: string, force: boolean) => api.removeEnvironment(env, force),
    [keys.project, keys.flags, keys.configs],
  )
  const removing = remove.target
  const inUse =
    remove.error instanceof ApiError && remove.error.code === 'IN_USE'
      ? (remove.error.details as { flags?: string[]; configs?: string[] })
      : null
  const submit = (e: FormEvent) => {
    e.preventDefault()
    add.mutate(name.trim())
  }
  return (
    <section className="card">
      <h2 className="card-title">Environments</h2>
      <p className="hint">
        Flags and configs can override their value per environment; evaluation picks one with the context’s “environment”.
      </p>
      <ul className="env-admin-list">
        {project.environments.map((env) => (
          <li key={env}>
            <span className="mono">{env}</span>
            <button
              type="button"
              className="btn btn-small btn-danger-outline"
              aria-label={`Remove environment ${env}`}
              onClick={() => remove.ask(env)}
            >
              Remove
            </button>
          </li>
        ))}
        {project.environments.length === 0 && <li className="muted">No environments.</li>}
      </ul>
      <form className="inline-form" onSubmit={submit}>
        <label className="field">
          <span className="field-label">New environment</span>
          <input
            value={name}
            onChange={(e) => setName(e.target.value)}
            placeholder="qa"
            pattern="[a-z0-9][a-z0-9_\-]{0,62}"
            className="mono"
          />
        </label>
        <button type="submit" className="btn" disabled={!name.trim() || add.isPending}>
          Add environment
        </button>
      </form>
      <ErrorMessage error={add.error} title="Could not add the environment" />
      {removing && (
        <ConfirmDialog
          title={`Remove environment “${removing}”?`}
          confirmLabel="Remove environment"
          {...remove.dialogProps}
          error={inUse ? null : remove.error}
          extra={
            inUse && (
              <button type="button" className="btn btn-danger" onClick={remove.force} disabled={remove.dialogProps.pending}>
                Force: remove overrides too
              </button>
            )
          }
        >
          {inUse ? (
            <div className="alert alert-warning" role="alert">
              <p>
                <strong>“{removing}” is still in use.</strong> These overrides would be deleted with it:
              </p>
              <ul className="issues">
                {inUse.flags?.map((k) => (
                  <li key={`f-${k}`}>
                    flag <code>{k}</code>
                  </li>
                ))}
                {inUse.configs?.map((k) => (
                  <li key={`c-${k}`}>
                    config <code>{k}</code>
                  </li>
                ))}
              </ul>
            </div>
          ) : (
            <p>Contexts with this environment will no longer match any override. Overrides that use it block removal unless forced.</p>
          )}
        </ConfirmDialog>
      )}
    </section>
  )
}
