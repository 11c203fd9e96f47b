// A flag's edit form: value or variants, rules, individual targeting, rollout or split, environments, active
// window, prerequisites and metadata, saved with If-Match through the document editor. The draft, whenever it
// is valid, goes to `onDraft` (the playground evaluates it).
import { useEffect, useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { api, keys, type Flag } from '../../api'
import { flagQueries } from '../../queries'
import { jsonOr, valueType } from '../../format'
import { DocumentForm, useDocumentEditor } from '../../components/DocumentEditor'
import { JsonEditor } from '../../components/JsonEditor'
import { Switch } from '../../components/Switch'
import { bodyOf, fromDraft, toDraft, type FlagBody, type FlagDraft } from './draft'
import { EnvironmentsCards } from './EnvironmentsCards'
import { MetadataCard } from './MetadataCard'
import { draftCycle, PrerequisitesCard } from './PrerequisitesCard'
import { TargetingEditor } from './TargetingEditor'
import { VariantsCard } from './VariantsCard'

interface Props {
  flag: Flag
  environments: string[]
  fetchCurrent: () => Promise<Flag | undefined>
  deleted: boolean
  /** the draft as flag fields while it is valid, else null */
  onDraft?: (body: FlagBody | null) => void
}

export function FlagEditor({ flag, environments, fetchCurrent, deleted, onDraft }: Props) {
  // Every flag of the project, for the prerequisites picker and its cycle check: read only once the flag has
  // (or is given) a prerequisite, so opening a flag never reads the whole list.
  const [needFlags, setNeedFlags] = useState(!!flag.prerequisites?.length)
  const flags = useQuery({ ...flagQueries.all(), enabled: needFlags })
  const build = (d: FlagDraft, b: Flag) => {
    const built = fromDraft(d, b)
    const cycle = draftCycle(flag.key, d, flags.data)
    return cycle
      ? { ok: false as const, problems: [...(built.ok ? [] : built.problems), `Prerequisites: would create a cycle: ${cycle.join(' → ')}`] }
      : built
  }
  const { draft, base, setDraft, form } = useDocumentEditor({
    resource: { type: 'flag', key: flag.key },
    doc: flag,
    deleted,
    name: `Flag “${flag.key}”`,
    toDraft: (f: Flag) => toDraft(f, environments),
    build,
    bodyOf,
    put: async (p, version) => (await api.updateFlag(flag.key, p as Partial<Flag>, version)).flag,
    fetchCurrent,
    invalidate: [keys.flags],
    listPath: '/',
  })

  const built = base && draft ? fromDraft(draft, base) : null
  const draftText = built?.ok ? JSON.stringify(built.body) : null
  useEffect(() => onDraft?.(draftText === null ? null : (JSON.parse(draftText) as FlagBody)), [draftText, onDraft])

  if (!base || !draft) return null
  const withVariants = draft.variants.length > 0
  const ownSwitches = Object.entries(draft.envs)
    .filter(([, e]) => e.overridden)
    .map(([env]) => env)
  const set = (p: Partial<FlagDraft>) => setDraft({ ...draft, ...p })

  return (
    <DocumentForm form={form} label="Edit flag" className="form flag-form">
      <section className="card">
        <h2 className="card-title">Status and value</h2>
        <Switch checked={draft.enabled} onChange={(enabled) => set({ enabled })} label="Main switch" showLabel />
        <p className="hint">
          On or off in every environment without a switch of its own
          {ownSwitches.length > 0 ? (
            <>
              {' '}
              (<strong>{ownSwitches.join(', ')}</strong>{' '}
              {ownSwitches.length === 1 ? 'has its own and keeps it' : 'have their own and keep them'}: see Environments, or use Turn off
              everywhere)
            </>
          ) : (
            ''
          )}
          . Where it is off, evaluation returns the off value ({valueType(jsonOr(draft.valueText, null)) === 'boolean' ? 'false' : 'null'})
          with reason “disabled”.
        </p>
        {!withVariants && (
          <JsonEditor
            label="Value"
            value={draft.valueText}
            onChange={(valueText) => set({ valueText })}
            hint="Served when the flag is on and no override, rule or rollout decides otherwise."
          />
        )}
      </section>

      <VariantsCard draft={draft} set={set} />

      <TargetingEditor draft={draft} set={set} />
      <EnvironmentsCards draft={draft} set={set} environments={environments} />
      <PrerequisitesCard
        flagKey={flag.key}
        draft={draft}
        set={(p) => {
          if (p.prerequisites?.length) setNeedFlags(true)
          set(p)
        }}
        flags={flags.data}
      />
      <MetadataCard draft={draft} set={set} />
    </DocumentForm>
  )
}
