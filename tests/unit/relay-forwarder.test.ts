// The relay's forwarder with its upstream away (nothing listens on the address): usage counts merge per
// flag, environment, variant and hour into batches on the spool, the spool keeps its bound by dropping the
// oldest waiting batch (never the one being sent), and a following relay's batch id is taken once.
import { afterEach, expect, test } from 'bun:test'
import { Forwarder } from '../../server/relay/forwarder'

const logged: string[] = []
let forwarder: Forwarder | undefined
const make = (maxItems?: number) =>
  (forwarder = new Forwarder({
    upstreamUrl: 'http://127.0.0.1:9',
    token: 'ff_defa_xxxxxxxxxxxxxxxxxxxx',
    log: (m) => void logged.push(m),
    changed: () => {},
    maxItems,
  }))
afterEach(() => forwarder?.stop())

const count = (key: string, n: number, to = '2026-11-28T10:15:00.000Z', environment = '') => ({
  key,
  environment,
  variant: 'default',
  count: n,
  from: '2026-11-28T10:00:00.000Z',
  to,
})

test('counts of the same flag, environment, variant and hour add up into one item', () => {
  const f = make()
  f.add('/api/v1/usage', [
    count('a', 2),
    count('a', 3, '2026-11-28T10:40:00.000Z'),
    count('a', 1, '2026-11-28T11:05:00.000Z'),
    count('a', 4, undefined, 'production'),
    count('b', 1),
  ])
  f.cut()
  const items = f.spooled().flatMap((b) => b.items) as { key: string; count: number; environment: string; to: string }[]
  expect(items.map((i) => [i.key, i.environment, i.to.slice(11, 13), i.count])).toEqual([
    ['a', '', '10', 5],
    ['a', '', '11', 1],
    ['a', 'production', '10', 4],
    ['b', '', '10', 1],
  ])
  expect(items[0]!.to).toBe('2026-11-28T10:40:00.000Z')
})

test('a full spool drops its oldest waiting batches, keeping the one being sent and the newest', () => {
  const f = make(1000)
  for (let i = 0; i < 5; i++) {
    f.add(
      '/api/v1/usage',
      Array.from({ length: 400 }, (_, k) => count(`flag-${i}-${k}`, 1)),
    )
    f.cut()
  }
  const batches = f.spooled()
  expect(batches.reduce((n, b) => n + b.items.length, 0)).toBeLessThanOrEqual(1000 + 400)
  expect((batches.at(-1)!.items[0] as { key: string }).key).toBe('flag-4-0')
  expect(f.stats().dropped).toBeGreaterThan(0)
  expect(logged.some((m) => m.includes('spool full'))).toBe(true)
})

test("a following relay's batch id is taken once", () => {
  const f = make()
  expect(f.add('/api/v1/usage', [count('a', 1)], 'batch-0001')).toBe(true)
  expect(f.add('/api/v1/usage', [count('a', 1)], 'batch-0001')).toBe(false)
  expect(f.takenIds()).toEqual(['batch-0001'])
  expect(f.spooled().flatMap((b) => b.items)).toHaveLength(1)
})
