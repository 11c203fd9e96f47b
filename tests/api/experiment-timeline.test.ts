// GET …/units?timeline=true (the console's units-over-time chart): cumulative units per variant at the end
// of each day of the phase, from each unit's first exposure, leaving out units seen in more than one
// variant, and agreeing with the results' `units` at its end; on SQLite and PostgreSQL alike.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { api, startServer, type TestServer } from '../helpers/server'
import { unitsTimeline } from '../../server/services/experiment-timeline'

const DAY = 86_400_000
let srv: TestServer
const call = (method: string, path: string, body?: unknown) => api(srv, method, path, { token: srv.adminToken, body })

beforeAll(async () => {
  srv = await startServer()
  const flag = {
    key: 'tl-flag',
    enabled: true,
    variants: { a: 'A', b: 'B' },
    default_variant: 'a',
    targeting: {
      rollout: {
        attribute: 'user_id',
        distribution: [
          { variant: 'a', weight: 50 },
          { variant: 'b', weight: 50 },
        ],
      },
    },
  }
  expect((await call('POST', '/api/v1/flags', flag)).status).toBe(201)
  expect((await call('POST', '/api/v1/metrics', { key: 'tl-buy', name: 'Buy', kind: 'proportion', event: 'buy' })).status).toBe(201)
  expect(
    (
      await call('POST', '/api/v1/experiments', {
        key: 'tl',
        name: 'Timeline',
        flag: 'tl-flag',
        environment: 'production',
        goal_metrics: ['tl-buy'],
      })
    ).status,
  ).toBe(201)
  expect((await call('POST', '/api/v1/experiments/tl/start')).status).toBe(200)
}, 60_000)
afterAll(() => srv?.stop())

test('cumulative units per variant per day, first exposures only, multiple exposures left out', async () => {
  // in three whole past days (UTC), a few minutes after each midnight
  const today = Math.floor(Date.now() / DAY) * DAY
  const when = (daysAgo: number, minute = 0) => new Date(today - (daysAgo + 1) * DAY + 60_000 * (minute + 1)).toISOString()
  const exposure = (unit: string, variant: string, timestamp: string) => ({
    type: 'exposure',
    flag: 'tl-flag',
    variant,
    context: { user_id: unit, environment: 'production' },
    timestamp,
  })
  const events = [
    exposure('u1', 'a', when(2)),
    exposure('u2', 'b', when(2, 1)),
    exposure('u3', 'a', when(2, 2)),
    exposure('u4', 'b', when(1)),
    exposure('u1', 'a', when(1, 1)), // u1 again, same variant: still day -2
    exposure('u5', 'a', when(0)),
    exposure('u6', 'b', when(0, 1)),
    exposure('u6', 'a', when(0, 2)), // u6 in two variants: left out
  ]
  expect((await call('POST', '/api/v1/events', { events })).status).toBe(202)
  const results = await call('GET', '/api/v1/experiments/tl/results?refresh=true')
  expect(results.body.units).toEqual({ a: 3, b: 2 })
  expect(results.body.timeline).toBeUndefined()
  const r = await call('GET', '/api/v1/experiments/tl/units?timeline=true')
  expect(r.status).toBe(200)
  expect(r.body).toMatchObject({ experiment: 'tl', phase: 1, units: { a: 3, b: 2 }, multiple_exposures: 1 })
  expect((await call('GET', '/api/v1/experiments/tl/units')).body.timeline).toBeUndefined()
  expect((await call('GET', '/api/v1/experiments/tl/units?timeline=yes')).status).toBe(400)
  const tl = r.body.timeline
  expect(tl.units).toEqual({ a: [0, 2, 2, 3], b: [0, 1, 2, 2] })
  expect(tl.at.length).toBe(4)
  expect(tl.at).toEqual([3, 2, 1, 0].map((d) => new Date(today - d * DAY).toISOString()))
})

test('no units yet: an empty series for every variant', () => {
  expect(unitsTimeline([], ['a', 'b'], Date.now())).toEqual({ at: [], units: { a: [], b: [] } })
  // a variant outside the split (shipped meanwhile) does not appear; one without units stays at 0
  expect(
    unitsTimeline(
      [
        { day: 0, variant: 'x', n: 5 },
        { day: 0, variant: 'a', n: 2 },
      ],
      ['a', 'b'],
      DAY / 2,
    ),
  ).toEqual({ at: [new Date(0).toISOString(), new Date(DAY / 2).toISOString()], units: { a: [0, 2], b: [0, 0] } })
})
