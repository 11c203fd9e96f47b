// A <select>'s options when each value is shown as itself (roles, page sizes, environments, actions).
export function Options({ values }: { values: readonly (string | number)[] }) {
  return (
    <>
      {values.map((v) => (
        <option key={v} value={v}>
          {v}
        </option>
      ))}
    </>
  )
}

/** A filter that is one of `values`, or none ("Any"): the audit logs' selects. */
export function AnyOf({
  label,
  value,
  values,
  onChange,
}: {
  label: string
  value: string
  values: readonly string[]
  onChange: (value: string) => void
}) {
  return (
    <label className="field">
      <span className="field-label">{label}</span>
      <select value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">Any</option>
        <Options values={values} />
      </select>
    </label>
  )
}
