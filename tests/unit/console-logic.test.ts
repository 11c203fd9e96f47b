// The console's pure helpers: splits and prerequisites (web/src/split.ts, web/src/prerequisite-graph.ts), what a
// flag serves per environment, when a webhook delivery goes out.
import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { evenly, movedShare, setWeight, TOTAL, type Slice } from '../../web/src/split'
import { cycleThrough } from '../../web/src/prerequisite-graph'
import { isProductionLike, onDespiteMainSwitch, servingByEnvironment } from '../../web/src/pages/flag/serving'
import { nextTry } from '../../web/src/delivery-times'
import type { Flag, Webhook } from '../../web/src/api'

const sum = (s: Slice[]) => s.reduce((t, x) => t + x.hundredths, 0)

describe('splits', () => {
  test('setWeight always keeps the total at 100 % and every weight in range', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.array(fc.tuple(fc.nat(5), fc.integer({ min: -500, max: 12000 })), { maxLength: 20 }),
        (n, edits) => {
          let slices = evenly(Array.from({ length: n }, (_, i) => `v${i}`))
          expect(sum(slices)).toBe(TOTAL)
          for (const [i, w] of edits) {
            slices = setWeight(slices, i % n, w)
            expect(sum(slices)).toBe(TOTAL)
            for (const s of slices) expect(s.hundredths >= 0 && s.hundredths <= TOTAL).toBe(true)
          }
        },
      ),
    )
  })

  test('setWeight takes from the slices after the edited one first', () => {
    const s = setWeight(evenly(['a', 'b', 'c', 'd']), 0, 4000)
    expect(s.map((x) => x.hundredths)).toEqual([4000, 1000, 2500, 2500])
  })

  test('movedShare: the size of the bucket ranges whose variant changes', () => {
    const before: Slice[] = [
      { variant: 'a', hundredths: 5000 },
      { variant: 'b', hundredths: 5000 },
    ]
    expect(movedShare(before, before)).toBe(0)
    expect(
      movedShare(before, [
        { variant: 'a', hundredths: 6000 },
        { variant: 'b', hundredths: 4000 },
      ]),
    ).toBeCloseTo(0.1)
    expect(
      movedShare(before, [
        { variant: 'b', hundredths: 5000 },
        { variant: 'a', hundredths: 5000 },
      ]),
    ).toBe(1)
    // moving weight between neighbours moves exactly the moved amount
    fc.assert(
      fc.property(fc.integer({ min: 0, max: TOTAL }), (w) => {
        const after: Slice[] = [
          { variant: 'a', hundredths: w },
          { variant: 'b', hundredths: TOTAL - w },
        ]
        expect(movedShare(before, after)).toBeCloseTo(Math.abs(w - 5000) / TOTAL)
      }),
    )
  })
})

describe('prerequisite cycles', () => {
  const graph = new Map([
    ['b', ['c']],
    ['c', ['a']],
    ['d', []],
  ])
  test('finds the cycle a new requirement would close, as the server words it', () => {
    expect(cycleThrough('a', ['b'], graph)).toEqual(['a', 'b', 'c', 'a'])
    expect(cycleThrough('a', ['d'], graph)).toBeNull()
    expect(cycleThrough('a', ['a'], graph)).toEqual(['a', 'a'])
  })
})

describe('what a flag serves per environment (web/src/pages/flag/serving.ts)', () => {
  const flag = (over: Partial<Flag>): Flag =>
    ({ key: 'f', enabled: false, value: true, version: 1, created_at: '', updated_at: '', ...over }) as Flag

  test('an environment with its own switch is on while the main switch is off; the others follow the main switch', () => {
    const rows = servingByEnvironment(flag({ environments: { production: { enabled: true } } }), ['production', 'staging'])
    expect(rows.map((r) => [r.environment, r.on, r.own, r.why])).toEqual([
      ['production', true, true, 'its own switch is on (the main switch is off)'],
      ['staging', false, false, 'follows the main switch (off)'],
      ['', false, false, 'follows the main switch (off)'],
    ])
    expect(rows[1]!.serves).toBe('the off value, false')
    expect(rows[0]!.serves).toBe('true (the flag’s value)')
    expect(onDespiteMainSwitch(flag({ environments: { production: { enabled: true }, staging: { enabled: false } } }))).toEqual([
      'production',
    ])
  })

  test('what an environment serves: its own value, targeting first, variants, the off variant', () => {
    const targeted = flag({
      enabled: true,
      value: 'a',
      targeting: { rules: [{ conditions: [], value: 'b' }] },
      environments: { staging: { enabled: true, value: 'c' } },
    })
    const [prod, staging] = servingByEnvironment(targeted, ['production', 'staging'])
    expect(prod!.serves).toBe('the flag’s rules first, else "a" (the flag’s value)')
    expect(staging!.serves).toBe('the flag’s rules first, else "c" (this environment’s value)')
    const variants = flag({ enabled: false, value: 'x', variants: { x: 'x', off: 'o' }, default_variant: 'x', off_variant: 'off' })
    expect(servingByEnvironment(variants, [])[0]!.serves).toBe('the off value, variant “off”')
    // Inherited names are no environments of the flag.
    expect(servingByEnvironment(flag({ enabled: true }), ['constructor'])[0]).toMatchObject({ own: false, on: true })
  })

  test('an environment with its own rules: the card names them', () => {
    const f = flag({
      enabled: true,
      value: 'a',
      targeting: { rules: [{ conditions: [], value: 'b' }] },
      environments: {
        production: { enabled: true, targeting: { rollout: { percentage: 5, attribute: 'user_id' } } },
        staging: { enabled: true, targeting: {} },
      },
    })
    const [prod, staging, dev] = servingByEnvironment(f, ['production', 'staging', 'development'])
    expect(prod).toMatchObject({ rules: 'own', serves: 'production’s own rules first, else "a" (the flag’s value)' })
    expect(staging).toMatchObject({ rules: 'own', serves: '"a" (the flag’s value; staging’s own rules are empty)' })
    expect(dev).toMatchObject({ rules: 'flag', serves: 'the flag’s rules first, else "a" (the flag’s value)' })
  })

  test('production-like names ask first', () => {
    expect(['production', 'prod', 'Prod-eu', 'live', 'production.us'].every(isProductionLike)).toBe(true)
    expect(['staging', 'development', 'preprod', 'productivity'].some(isProductionLike)).toBe(false)
  })
})

describe('when a pending webhook delivery goes out (web/src/delivery-times.ts)', () => {
  const hook = (health: Partial<Webhook['health']>): Webhook =>
    ({
      id: 'w',
      config: { url: 'https://x.example.com', has_secret: false, events: ['*'] },
      health: { status: 'active', consecutive_failures: 0, failing_since: null, next_attempt_at: null, paused_at: null, ...health },
    }) as Webhook
  const at = (ms: number) => new Date(Date.now() + ms).toISOString()

  test('a time already past is due now, never "ago"', () => {
    expect(nextTry(at(-7 * 60_000), hook({}))).toBe('next try: due now')
    expect(nextTry(null, hook({}))).toBe('next try: due now')
  })

  test('a backing-off webhook holds its deliveries back until its own next attempt', () => {
    const text = nextTry(at(-7 * 60_000), hook({ status: 'failing', consecutive_failures: 3, next_attempt_at: at(10 * 60_000) }))
    expect(text).toBe('next try in 10 minutes (the webhook is backing off)')
    expect(nextTry(at(5 * 60_000), hook({}))).toBe('next try in 5 minutes')
    expect(nextTry(at(5 * 60_000), hook({ status: 'paused', paused_at: at(-1000) }))).toBe(
      'waiting: the webhook is paused (resume it to send)',
    )
  })
})
