// Small display and conversion helpers shared by the pages.
import type { Json } from './api'

export type ParseResult = { ok: true; value: Json } | { ok: false; error: string }

/** Parses JSON text; the error message is what the editors show inline. */
export function parseJson(text: string): ParseResult {
  if (!text.trim()) return { ok: false, error: 'Enter a JSON value (for example true, 42, "text" or {"a": 1}).' }
  try {
    return { ok: true, value: JSON.parse(text) as Json }
  } catch (e) {
    return { ok: false, error: `Invalid JSON: ${(e as Error).message}` }
  }
}

export const toJsonText = (v: Json | undefined, pretty = true): string =>
  v === undefined ? '' : pretty ? JSON.stringify(v, null, 2) : JSON.stringify(v)

/** The evaluation `type` of a value: the engine's own function. */
export { typeOf as valueType } from '../../server/engine/value-type'

/** A short one-line preview of a JSON value. */
export function preview(v: Json | undefined, max = 48): string {
  const s = v === undefined ? '—' : JSON.stringify(v)
  return s.length > max ? `${s.slice(0, max - 1)}…` : s
}

const rtf = new Intl.RelativeTimeFormat('en', { numeric: 'auto' })
const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 86400],
  ['month', 30 * 86400],
  ['week', 7 * 86400],
  ['day', 86400],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
]

/** "3 minutes ago" style, for recent changes. */
export function relativeTime(iso: string | null | undefined): string {
  if (!iso) return '—'
  const diff = (Date.parse(iso) - Date.now()) / 1000
  if (Number.isNaN(diff)) return iso
  for (const [unit, secs] of UNITS) {
    if (Math.abs(diff) >= secs || unit === 'second') return rtf.format(Math.round(diff / secs), unit)
  }
  return iso
}

export function dateTime(iso: string | null | undefined): string {
  if (!iso) return '—'
  const d = new Date(iso)
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })
}

/** ISO timestamp -> value for <input type="datetime-local"> (local time). */
export function isoToLocalInput(iso: string | null | undefined): string {
  if (!iso) return ''
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return ''
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`
}

/** <input type="datetime-local"> value -> ISO timestamp (null when empty). */
export function localInputToIso(local: string): string | null {
  if (!local) return null
  const d = new Date(local)
  return Number.isNaN(d.getTime()) ? null : d.toISOString()
}

/** Deep equality for JSON values (key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  const ka = Object.keys(a as object)
  const kb = Object.keys(b as object)
  if (ka.length !== kb.length) return false
  return ka.every((k) => Object.hasOwn(b, k) && jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
}

export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

/** The JSON value of `text`, or `fallback` when it does not parse. */
export function jsonOr(text: string, fallback: Json): Json {
  const r = parseJson(text)
  return r.ok ? r.value : fallback
}
