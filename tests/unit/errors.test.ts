// Services (and identity/, access/) refuse with the named constructors of server/errors.ts, and each kind of refusal becomes its HTTP
// status in one place (STATUS there): no service writes a status number itself.
import { expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from '../helpers/import-graph'
import {
  type AppError,
  STATUS,
  alreadyExists,
  conflict,
  forbidden,
  gone,
  inUse,
  invalid,
  invalidState,
  limitReached,
  notFound,
  notFoundWith,
  rateLimited,
  unauthorized,
  validationError,
  versionConflict,
} from '../../server/errors'

const shape = (e: AppError) => ({ status: e.status, code: e.code, message: e.message, details: e.details, headers: e.headers })

test('each constructor gives its kind its status, and keeps the code, message and details', () => {
  expect(shape(conflict('PLAN_OUTDATED', 'plan again', { plan_id: 'p' }))).toEqual({
    status: 409,
    code: 'PLAN_OUTDATED',
    message: 'plan again',
    details: { plan_id: 'p' },
    headers: undefined,
  })
  expect(shape(inUse('used by 2 flag(s)', { flags: ['a', 'b'] }))).toMatchObject({
    status: 409,
    code: 'IN_USE',
    details: { flags: ['a', 'b'] },
  })
  expect(shape(inUse('used by an experiment', undefined, 'METRIC_IN_USE'))).toMatchObject({
    status: 409,
    code: 'METRIC_IN_USE',
    details: undefined,
  })
  expect(shape(alreadyExists('Slug "x" is taken'))).toMatchObject({ status: 409, code: 'ALREADY_EXISTS', message: 'Slug "x" is taken' })
  expect(shape(limitReached('at most 3'))).toMatchObject({ status: 409, code: 'LIMIT_REACHED' })
  expect(shape(invalidState('is running', { state: 'running' }))).toMatchObject({
    status: 409,
    code: 'INVALID_STATE',
    details: { state: 'running' },
  })
  expect(shape(versionConflict(4))).toEqual({
    status: 409,
    code: 'CONFLICT',
    message: 'Version conflict',
    details: { current_version: 4 },
    headers: undefined,
  })
  expect(shape(forbidden('SELF_APPROVAL', 'not your own'))).toMatchObject({ status: 403, code: 'SELF_APPROVAL' })
  expect(shape(unauthorized('UNAUTHORIZED', 'sign in'))).toMatchObject({ status: 401, code: 'UNAUTHORIZED' })
  expect(shape(notFound('PROJECT_NOT_FOUND', 'Project'))).toMatchObject({
    status: 404,
    code: 'PROJECT_NOT_FOUND',
    message: 'Project not found',
  })
  expect(shape(notFoundWith('FLAG_NOT_FOUND', 'Flag(s) a, b not found', { keys: ['a', 'b'] }))).toMatchObject({
    status: 404,
    details: { keys: ['a', 'b'] },
  })
  expect(shape(invalid('CONFIRMATION_REQUIRED', 'send ?confirm'))).toMatchObject({ status: 400, code: 'CONFIRMATION_REQUIRED' })
  expect(shape(validationError([{ path: 'key', message: 'must be a key' }]))).toMatchObject({
    status: 400,
    code: 'VALIDATION_ERROR',
    message: 'Invalid request: key: must be a key',
  })
  expect(shape(gone('INVITATION_GONE', 'expired'))).toMatchObject({ status: 410, code: 'INVITATION_GONE' })
  expect(shape(rateLimited('RATE_LIMITED', 'slow down', 7))).toEqual({
    status: 429,
    code: 'RATE_LIMITED',
    message: 'slow down',
    details: { retry_after: 7 },
    headers: { 'Retry-After': '7' },
  })
  expect(Object.values(STATUS)).toEqual([400, 401, 403, 404, 409, 410, 429, 503])
})

/** `new AppError(<a number>` in a source text: a status written by hand instead of a named constructor. */
const handMade = (text: string) => [...text.matchAll(/new AppError\(\s*\d/g)].length

test('no service (services/, identity/, access/) builds an AppError with a status of its own', () => {
  const found = ['services', 'identity', 'access'].flatMap((room) => {
    const dir = join(ROOT, 'server', room)
    return readdirSync(dir)
      .filter((f) => f.endsWith('.ts') && handMade(readFileSync(join(dir, f), 'utf8')) > 0)
      .map((f) => `${room}/${f}`)
  })
  expect(found).toEqual([])
  // the check can fail
  expect(handMade("throw new AppError(409, 'IN_USE', 'used')")).toBe(1)
  expect(handMade('throw new AppError(e.status, e.code, e.message)')).toBe(0)
})
