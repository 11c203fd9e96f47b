// An on/off switch: a button with role="switch", named by its label.
interface Props {
  checked: boolean
  onChange: (next: boolean) => void
  label: string
  disabled?: boolean
  /** show the label next to the switch instead of only to assistive technology */
  showLabel?: boolean
  /** dimmed look for a state that is inherited rather than set */
  inherited?: boolean
}

export function Switch({ checked, onChange, label, disabled, showLabel, inherited }: Props) {
  return (
    <button
      type="button"
      role="switch"
      aria-checked={checked}
      aria-label={showLabel ? undefined : label}
      disabled={disabled}
      className={`switch${checked ? ' on' : ''}${inherited ? ' inherited' : ''}`}
      onClick={() => onChange(!checked)}
    >
      <span className="switch-track" aria-hidden="true">
        <span className="switch-thumb" />
      </span>
      {showLabel && <span className="switch-label">{label}</span>}
    </button>
  )
}
