// Strict ISO 8601 timestamps for `before`/`after` and the active window. Date.parse alone is not enough:
// engines disagree on non-ISO formats, roll invalid dates over (2024-02-30 becomes March 1st) and read a
// date-time without an offset as local time, which would make evaluation depend on the server's zone.
// So the shape and ranges are checked here, and a date-time without an offset is read as UTC.

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?([Zz]|[+-]\d{2}(?::?\d{2})?)?)?$/

const DAY_MS = 86_400_000

function isLeap(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0
}
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

/** Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil); no 2-digit-year quirks. */
function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0
  const era = Math.floor(y / 400)
  const yoe = y - era * 400
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy
  return era * 146097 + doe - 719468
}

/** Milliseconds since the epoch of an ISO 8601 date or date-time, or NaN when `text` is not one. */
export function parseIsoDate(text: string): number {
  if (text.length > 64) return NaN
  const m = ISO.exec(text)
  if (m === null) return NaN
  const year = +m[1]!
  const month = +m[2]!
  const day = +m[3]!
  if (month < 1 || month > 12 || day < 1) return NaN
  if (day > (month === 2 && isLeap(year) ? 29 : MONTH_DAYS[month - 1]!)) return NaN
  const hour = m[4] === undefined ? 0 : +m[4]
  const minute = m[5] === undefined ? 0 : +m[5]
  const second = m[6] === undefined ? 0 : +m[6]
  if (hour > 23 || minute > 59 || second > 59) return NaN
  // Fractions finer than a millisecond are truncated, as Date.parse does.
  const ms = m[7] === undefined ? 0 : +(m[7] + '00').slice(0, 3)
  let offsetMinutes = 0
  const zone = m[8]
  if (zone !== undefined && zone !== 'Z' && zone !== 'z') {
    const digits = zone.slice(1).replace(':', '')
    const oh = +digits.slice(0, 2)
    const om = digits.length > 2 ? +digits.slice(2) : 0
    if (oh > 23 || om > 59) return NaN
    offsetMinutes = (zone[0] === '-' ? -1 : 1) * (oh * 60 + om)
  }
  return daysFromCivil(year, month, day) * DAY_MS + ((hour * 60 + minute - offsetMinutes) * 60 + second) * 1000 + ms
}

/** True when `text` is a string holding a valid ISO 8601 date or date-time. */
export function isIsoDate(text: unknown): text is string {
  return typeof text === 'string' && !Number.isNaN(parseIsoDate(text))
}
