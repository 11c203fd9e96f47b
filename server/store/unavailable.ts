// Telling "the database cannot be reached" apart from every other database error.
import { AppError } from '../errors'

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08003',
  '08006',
])

export function isStoreUnavailable(e: unknown): boolean {
  for (let err = e as { code?: string; cause?: unknown } | undefined, depth = 0; err && depth < 5; err = err.cause as typeof err, depth++) {
    if (typeof err.code === 'string' && CONNECTION_CODES.has(err.code)) return true
  }
  return false
}

export const storeUnavailable = () =>
  new AppError(503, 'STORE_UNAVAILABLE', 'The database is unavailable; retry shortly. Evaluations keep being served.')
