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
