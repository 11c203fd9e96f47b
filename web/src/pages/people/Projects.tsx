// The instance's projects (instance owners and admins): create one, delete one (owners; the slug must be
// typed to confirm).
import { useState } from 'react'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { keys } from '../../api'
import { useApiMutation } from '../../mutations'
import { teamsApi, teamsKeys, type ProjectSummary } from '../../teams-api'
import { DataTable } from '../../components/DataTable'
import { ErrorMessage } from '../../components/ErrorMessage'
import { Field } from '../../components/Field'
import { ListStates } from '../../components/ListStates'
import { PageHeader } from '../../components/State'

export function Projects() {
  const qc = useQueryClient()
  const projects = useQuery({ queryKey: teamsKeys.projects, queryFn: teamsApi.projects })
  const [name, setName] = useState('')
  const [slug, setSlug] = useState('')
  const [environments, setEnvironments] = useState('development, staging, production')
  const create = useApiMutation(
    () =>
      teamsApi.createProject({
        name: name.trim(),
        slug: slug.trim(),
        environments: environments
          .split(',')
          .map((e) => e.trim())
          .filter(Boolean),
      }),
    [teamsKeys.projects],
    () => {
      setName('')
      setSlug('')
      // the switcher lists the new project
      void qc.invalidateQueries({ queryKey: keys.me })
    },
  )
  return (
    <>
      <PageHeader title="Projects" subtitle="Each project has its own flags, configs, segments, tokens and members." />
      <section className="card" aria-labelledby="new-project-title">
        <h2 className="card-title" id="new-project-title">
          New project
        </h2>
        <form className="form row-fields" onSubmit={(e) => (e.preventDefault(), create.mutate(undefined))} aria-label="New project">
          <Field id="project-name" label="Name" value={name} onChange={(e) => setName(e.target.value)} />
          <Field
            id="project-slug"
            label="Slug"
            value={slug}
            onChange={(e) => setSlug(e.target.value)}
            className="mono"
            placeholder="web-shop"
          />
          <Field id="project-envs" label="Environments" value={environments} onChange={(e) => setEnvironments(e.target.value)} />
          <button type="submit" className="btn btn-primary" disabled={create.isPending || !name.trim() || !slug.trim()}>
            Create project
          </button>
        </form>
        <ErrorMessage error={create.error} title="Project not created" />
      </section>
      <ListStates query={projects} what="projects">
        {(rows) => (
          <DataTable caption="Projects" columns={['Project', 'Slug', 'Environments', { label: 'Actions', hidden: true }]}>
            {rows.map((p) => (
              <ProjectRow key={p.id} project={p} />
            ))}
          </DataTable>
        )}
      </ListStates>
    </>
  )
}

function ProjectRow({ project }: { project: ProjectSummary }) {
  const qc = useQueryClient()
  const remove = useApiMutation(
    () => teamsApi.deleteProject(project.id, project.slug),
    [teamsKeys.projects],
    () => void qc.invalidateQueries({ queryKey: keys.me }),
  )
  const ask = () => {
    const typed = window.prompt(
      `Delete project “${project.name}” with all its flags, configs, segments and tokens? Type its slug (${project.slug}) to confirm.`,
    )
    if (typed === project.slug) remove.mutate(undefined)
  }
  return (
    <tr>
      <td data-label="Project">
        {project.name}
        <ErrorMessage error={remove.error} title="Not deleted" />
      </td>
      <td data-label="Slug">
        <code>{project.slug}</code>
      </td>
      <td data-label="Environments">{project.environments?.join(', ')}</td>
      <td>
        <button type="button" className="btn btn-small btn-danger-outline" onClick={ask} aria-label={`Delete project ${project.name}`}>
          Delete
        </button>
      </td>
    </tr>
  )
}
