// Copies text to the clipboard and says so.
import { useState } from 'react'

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [copied, setCopied] = useState<null | 'ok' | 'fail'>(null)
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text)
      setCopied('ok')
    } catch {
      setCopied('fail')
    }
    setTimeout(() => setCopied(null), 2000)
  }
  return (
    <button type="button" className="btn btn-small" onClick={copy} aria-live="polite">
      {copied === 'ok' ? 'Copied' : copied === 'fail' ? 'Copy failed — select and copy' : label}
    </button>
  )
}

/** Something shown once to be copied (a new token, an invitation or reset link): read-only, with its button. */
export function CopyField({
  value,
  label,
  copyLabel,
  selectOnFocus,
}: {
  value: string
  label: string
  copyLabel: string
  selectOnFocus?: boolean
}) {
  return (
    <div className="input-row">
      <input readOnly value={value} aria-label={label} className="mono" onFocus={selectOnFocus ? (e) => e.target.select() : undefined} />
      <CopyButton text={value} label={copyLabel} />
    </div>
  )
}
