// Edits a list of conditions { property, operator, value } — shared by flag targeting rules and segments.
// Values are edited as text (a draft) and turned into JSON on save, so typing is never reformatted.
import { useEffect, useId, useReducer } from 'react'
import { useQuery } from '@tanstack/react-query'
import { OPERATORS, type Condition, type Json, type Operator } from '../api'
import { segmentQueries } from '../queries'
import { conditionValueProblem } from '../../../server/engine/validate'
import { hasRegexEngine } from '../../../server/engine/regex'
import { loadRegexEngine } from '../../../server/engine/regex-loader'
import { isoToLocalInput, localInputToIso } from '../format'

export interface ConditionDraft {
  id: string
  property: string
  operator: Operator
  valueText: string
}

type ValueKind = 'none' | 'segment' | 'list' | 'number' | 'date' | 'text' | 'loose'

const KIND: Record<Operator, ValueKind> = {
  equals: 'loose',
  not_equals: 'loose',
  contains: 'loose',
  not_contains: 'loose',
  in: 'list',
  not_in: 'list',
  starts_with: 'text',
  ends_with: 'text',
  matches: 'text',
  semver_equals: 'text',
  semver_greater_than: 'text',
  semver_less_than: 'text',
  greater_than: 'number',
  greater_than_or_equal: 'number',
  less_than: 'number',
  less_than_or_equal: 'number',
  before: 'date',
  after: 'date',
  exists: 'none',
  not_exists: 'none',
  in_segment: 'segment',
  not_in_segment: 'segment',
}

const OPERATOR_LABEL: Record<Operator, string> = {
  equals: 'equals',
  not_equals: 'does not equal',
  in: 'is one of',
  not_in: 'is not one of',
  contains: 'contains',
  not_contains: 'does not contain',
  starts_with: 'starts with',
  ends_with: 'ends with',
  matches: 'matches regex',
  greater_than: '>',
  greater_than_or_equal: '≥',
  less_than: '<',
  less_than_or_equal: '≤',
  before: 'is before',
  after: 'is after',
  semver_equals: 'semver =',
  semver_greater_than: 'semver >',
  semver_less_than: 'semver <',
  exists: 'exists',
  not_exists: 'does not exist',
  in_segment: 'is in segment',
  not_in_segment: 'is not in segment',
}

const PROPERTY_SUGGESTIONS = ['user_id', 'plan', 'environment', 'custom.country', 'custom.email', 'custom.version']

let seq = 0
export const newDraftId = () => `d${++seq}`

/** Text that reads back as the same JSON scalar/structure; plain words stay strings. */
function textToLoose(text: string): Json {
  const t = text.trim()
  if (/^(-?\d+(\.\d+)?([eE][+-]?\d+)?|true|false|null)$/.test(t) || /^["[{]/.test(t)) {
    try {
      return JSON.parse(t) as Json
    } catch {
      return text
    }
  }
  return text
}
function looseToText(v: Json | undefined): string {
  if (v === undefined) return ''
  if (typeof v === 'string') return textToLoose(v) === v ? v : JSON.stringify(v)
  return JSON.stringify(v)
}

export function conditionToDraft(c: Condition): ConditionDraft {
  const kind = KIND[c.operator] ?? 'loose'
  let valueText = ''
  if (kind === 'list' && Array.isArray(c.value)) {
    const simple = c.value.every((x) => typeof x !== 'string' || (!x.includes(',') && textToLoose(x) === x && x.trim() === x))
    valueText = simple ? c.value.map((x) => looseToText(x)).join(', ') : JSON.stringify(c.value)
  } else if (kind === 'date' && typeof c.value === 'string') valueText = isoToLocalInput(c.value) || c.value
  else if (kind === 'number' || kind === 'loose' || kind === 'list') valueText = looseToText(c.value)
  else if (c.value !== undefined && c.value !== null) valueText = typeof c.value === 'string' ? c.value : JSON.stringify(c.value)
  return { id: newDraftId(), property: c.property ?? '', operator: c.operator, valueText }
}

export const emptyCondition = (): ConditionDraft => ({ id: newDraftId(), property: 'plan', operator: 'equals', valueText: '' })

export type DraftResult = { ok: true; condition: Condition } | { ok: false; error: string }

export function draftToCondition(d: ConditionDraft): DraftResult {
  const kind = KIND[d.operator]
  // A segment condition is the segment itself: it tests no property of its own.
  if (kind === 'segment')
    return d.valueText.trim()
      ? { ok: true, condition: { operator: d.operator, value: d.valueText.trim() } }
      : { ok: false, error: 'Choose a segment.' }
  const property = d.property.trim()
  if (!property) return { ok: false, error: 'Enter the property to test.' }
  const parsed = parseValue(d, property, kind)
  if (!parsed.ok) return parsed
  // The server's own check of the value (regular expressions, versions, dates …), as it is typed. A pattern
  // waits for the regex engine (ConditionEditor loads it); until then the server's answer on saving judges it.
  const pending = d.operator === 'matches' && !hasRegexEngine()
  const problem = pending ? undefined : conditionValueProblem(d.operator, parsed.condition.value)
  return problem ? { ok: false, error: `Value ${problem}.` } : parsed
}

function parseValue(d: ConditionDraft, property: string, kind: ValueKind): DraftResult {
  const t = d.valueText.trim()
  switch (kind) {
    case 'none':
      return { ok: true, condition: { property, operator: d.operator } }
    case 'number': {
      const n = Number(t)
      return t && Number.isFinite(n)
        ? { ok: true, condition: { property, operator: d.operator, value: n } }
        : { ok: false, error: 'Enter a number.' }
    }
    case 'date': {
      const iso = localInputToIso(t) ?? (t && !Number.isNaN(Date.parse(t)) ? t : null)
      return iso ? { ok: true, condition: { property, operator: d.operator, value: iso } } : { ok: false, error: 'Enter a date and time.' }
    }
    case 'list': {
      if (!t) return { ok: false, error: 'Enter at least one value.' }
      if (t.startsWith('[')) {
        const v = textToLoose(t)
        return Array.isArray(v)
          ? { ok: true, condition: { property, operator: d.operator, value: v } }
          : { ok: false, error: 'Invalid JSON array.' }
      }
      const items = t
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
        .map(textToLoose)
      return { ok: true, condition: { property, operator: d.operator, value: items } }
    }
    case 'text':
      return t ? { ok: true, condition: { property, operator: d.operator, value: d.valueText } } : { ok: false, error: 'Enter a value.' }
    default:
      return { ok: true, condition: { property, operator: d.operator, value: textToLoose(d.valueText) } }
  }
}

/** Collects every draft's condition, or the first problem with its position. */
export function draftsToConditions(
  drafts: ConditionDraft[],
  where: string,
): { ok: true; conditions: Condition[] } | { ok: false; error: string } {
  const conditions: Condition[] = []
  for (let i = 0; i < drafts.length; i++) {
    const r = draftToCondition(drafts[i])
    if (!r.ok) return { ok: false, error: `${where} condition ${i + 1}: ${r.error}` }
    conditions.push(r.condition)
  }
  return { ok: true, conditions }
}

/** One-line reading of a condition, for read-only views. */
export function describeCondition(c: Condition): string {
  const label = OPERATOR_LABEL[c.operator] ?? c.operator
  if (KIND[c.operator] === 'segment') return `${label} ${JSON.stringify(c.value)}`
  if (KIND[c.operator] === 'none') return `${c.property} ${label}`
  return `${c.property} ${label} ${JSON.stringify(c.value)}`
}

/** Moves item i by delta (−1 up, +1 down) in a copy of the list. */
export function move<T>(list: T[], i: number, delta: number): T[] {
  const j = i + delta
  if (j < 0 || j >= list.length) return list
  const next = list.slice()
  ;[next[i], next[j]] = [next[j], next[i]]
  return next
}

const HINT: Partial<Record<ValueKind, string>> = {
  list: 'Comma-separated (or a JSON array)',
  loose: 'Text; numbers, true/false and JSON are typed — quote to force text',
}

interface Props {
  conditions: ConditionDraft[]
  onChange: (next: ConditionDraft[]) => void
  /** prefixes every control's accessible name, e.g. "Rule 1" */
  label: string
  readOnly?: boolean
  /** offer in_segment / not_in_segment (flag rules may reference segments; segments may not) */
  allowSegments?: boolean
}

export function ConditionEditor({ conditions, onChange, label, readOnly, allowSegments = true }: Props) {
  const listId = useId()
  const segments = useQuery({ ...segmentQueries.all(), enabled: !readOnly && allowSegments })
  const operators = OPERATORS.filter((op) => allowSegments || KIND[op] !== 'segment')
  const segmentKeys = segments.data?.map((s) => s.key) ?? []
  // `matches` patterns are checked with re2js, fetched only once a condition uses it; render again when it is in.
  const [, regexLoaded] = useReducer((n: number) => n + 1, 0)
  const usesRegex = !readOnly && conditions.some((c) => c.operator === 'matches')
  useEffect(() => {
    if (!usesRegex || hasRegexEngine()) return
    let live = true
    loadRegexEngine().then(
      () => live && regexLoaded(),
      () => undefined,
    )
    return () => {
      live = false
    }
  }, [usesRegex])

  if (readOnly) {
    if (!conditions.length) return <p className="muted">No conditions: matches every context.</p>
    return (
      <ul className="condition-summary">
        {conditions.map((d) => {
          const r = draftToCondition(d)
          return (
            <li key={d.id}>
              <code>{r.ok ? describeCondition(r.condition) : `${d.property} ${d.operator} ${d.valueText}`}</code>
            </li>
          )
        })}
      </ul>
    )
  }

  const update = (i: number, patch: Partial<ConditionDraft>) => onChange(conditions.map((c, n) => (n === i ? { ...c, ...patch } : c)))

  return (
    <div className="conditions">
      <datalist id={listId}>
        {PROPERTY_SUGGESTIONS.map((p) => (
          <option key={p} value={p} />
        ))}
      </datalist>
      {conditions.length === 0 && <p className="muted small">No conditions: matches every context.</p>}
      {conditions.map((c, i) => {
        const name = `${label} condition ${i + 1}`
        const kind = KIND[c.operator]
        const check = draftToCondition(c)
        const showError = !check.ok && (c.valueText !== '' || kind === 'segment' || !c.property.trim())
        return (
          <div className="condition" key={c.id}>
            <div className="condition-fields">
              {kind !== 'segment' && (
                <label className="field">
                  <span className="field-label">Property</span>
                  <input
                    aria-label={`${name} property`}
                    list={listId}
                    value={c.property}
                    onChange={(e) => update(i, { property: e.target.value })}
                    placeholder="plan"
                  />
                </label>
              )}
              <label className="field">
                <span className="field-label">Operator</span>
                <select
                  aria-label={`${name} operator`}
                  value={c.operator}
                  onChange={(e) => update(i, { operator: e.target.value as Operator })}
                >
                  {operators.map((op) => (
                    <option key={op} value={op}>
                      {OPERATOR_LABEL[op] === op ? op : `${OPERATOR_LABEL[op]} (${op})`}
                    </option>
                  ))}
                </select>
              </label>
              {kind !== 'none' && (
                <label className="field condition-value">
                  <span className="field-label">Value</span>
                  {kind === 'segment' ? (
                    segments.isError ? (
                      <input
                        aria-label={`${name} value`}
                        value={c.valueText}
                        onChange={(e) => update(i, { valueText: e.target.value })}
                        placeholder="segment key"
                      />
                    ) : (
                      <select aria-label={`${name} value`} value={c.valueText} onChange={(e) => update(i, { valueText: e.target.value })}>
                        <option value="">
                          {segments.isLoading ? 'Loading segments…' : segmentKeys.length ? 'Choose a segment…' : 'No segments yet'}
                        </option>
                        {[...new Set([...segmentKeys, ...(c.valueText ? [c.valueText] : [])])].map((k) => (
                          <option key={k} value={k}>
                            {k}
                          </option>
                        ))}
                      </select>
                    )
                  ) : kind === 'date' ? (
                    <input
                      type="datetime-local"
                      aria-label={`${name} value`}
                      value={c.valueText}
                      onChange={(e) => update(i, { valueText: e.target.value })}
                    />
                  ) : (
                    <input
                      aria-label={`${name} value`}
                      inputMode={kind === 'number' ? 'decimal' : undefined}
                      value={c.valueText}
                      placeholder={kind === 'list' ? 'pro, enterprise' : kind === 'number' ? '0' : 'value'}
                      title={HINT[kind]}
                      onChange={(e) => update(i, { valueText: e.target.value })}
                    />
                  )}
                </label>
              )}
            </div>
            <div className="condition-actions btn-group">
              <button
                type="button"
                className="btn-icon"
                aria-label={`Move ${name} up`}
                disabled={i === 0}
                onClick={() => onChange(move(conditions, i, -1))}
              >
                ↑
              </button>
              <button
                type="button"
                className="btn-icon"
                aria-label={`Move ${name} down`}
                disabled={i === conditions.length - 1}
                onClick={() => onChange(move(conditions, i, 1))}
              >
                ↓
              </button>
              <button
                type="button"
                className="btn-icon btn-icon-danger"
                aria-label={`Remove ${name}`}
                onClick={() => onChange(conditions.filter((_, n) => n !== i))}
              >
                ✕
              </button>
            </div>
            {showError && !check.ok && <p className="field-error condition-error">{check.error}</p>}
            {!showError && HINT[kind] && <p className="hint condition-error">{HINT[kind]}</p>}
          </div>
        )
      })}
      <button type="button" className="btn btn-small" onClick={() => onChange([...conditions, emptyCondition()])}>
        + Add condition{label ? ` to ${label.toLowerCase()}` : ''}
      </button>
    </div>
  )
}
