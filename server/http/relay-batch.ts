// The id a relay puts on each batch it forwards (docs/operations.md, Relays): `Flagship-Batch-Id`, honoured
// only from a relay key. The route that applies the batch takes the id in the same transaction, so a batch
// sent again (its answer was lost) is answered `duplicate` and changes nothing.
import { AppError } from '../errors'
import type { Caller } from './auth'

export const BATCH_HEADER = 'flagship-batch-id'
const BATCH_ID = /^[A-Za-z0-9_-]{8,64}$/

/** The batch id of a relay's forwarded request; undefined for everyone else (the header means nothing there). */
export function batchIdOf(request: Request, caller: Caller): string | undefined {
  const id = request.headers.get(BATCH_HEADER)
  if (id === null || !caller.token.permissions.includes('relay')) return undefined
  if (!BATCH_ID.test(id))
    throw new AppError(400, 'VALIDATION_ERROR', 'Flagship-Batch-Id must be 8 to 64 characters of [A-Za-z0-9_-]', {
      issues: [{ path: 'Flagship-Batch-Id', message: 'malformed' }],
    })
  return id
}
