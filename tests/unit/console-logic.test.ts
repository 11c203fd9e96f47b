// The console's pure helpers for splits and prerequisites (web/src/split.ts, web/src/prerequisite-graph.ts).
import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { evenly, movedShare, setWeight, TOTAL, type Slice } from '../../web/src/split'
import { cycleThrough } from '../../web/src/prerequisite-graph'

const sum = (s: Slice[]) => s.reduce((t, x) => t + x.hundredths, 0)

describe('splits', () => {
  test('setWeight always keeps the total at 100 % and every weight in range', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 6 }), fc.array(fc.tuple(fc.nat(5), fc.integer({ min: -500, max: 12000 })), { maxLength: 20 }), (n, edits) => {
      let slices = evenly(Array.from({ length: n }, (_, i) => `v${i}`))
      expect(sum(slices)).toBe(TOTAL)
      for (const [i, w] of edits) {
        slices = setWeight(slices, i % n, w)
        expect(sum(slices)).toBe(TOTAL)
        for (const s of slices) expect(s.hundredths >= 0 && s.hundredths <= TOTAL).toBe(true)
      }
    }))
  })

  test('setWeight takes from the slices after the edited one first', () => {
    const s = setWeight(evenly(['a', 'b', 'c', 'd']), 0, 4000)
    expect(s.map((x) => x.hundredths)).toEqual([4000, 1000, 2500, 2500])
  })

  test('movedShare: the size of the bucket ranges whose variant changes', () => {
    const before: Slice[] = [{ variant: 'a', hundredths: 5000 }, { variant: 'b', hundredths: 5000 }]
    expect(movedShare(before, before)).toBe(0)
    expect(movedShare(before, [{ variant: 'a', hundredths: 6000 }, { variant: 'b', hundredths: 4000 }])).toBeCloseTo(0.1)
    expect(movedShare(before, [{ variant: 'b', hundredths: 5000 }, { variant: 'a', hundredths: 5000 }])).toBe(1)
    // moving weight between neighbours moves exactly the moved amount
    fc.assert(fc.property(fc.integer({ min: 0, max: TOTAL }), (w) => {
      const after: Slice[] = [{ variant: 'a', hundredths: w }, { variant: 'b', hundredths: TOTAL - w }]
      expect(movedShare(before, after)).toBeCloseTo(Math.abs(w - 5000) / TOTAL)
    }))
  })
})

describe('prerequisite cycles', () => {
  const graph = new Map([['b', ['c']], ['c', ['a']], ['d', []]])
  test('finds the cycle a new requirement would close, as the server words it', () => {
    expect(cycleThrough('a', ['b'], graph)).toEqual(['a', 'b', 'c', 'a'])
    expect(cycleThrough('a', ['d'], graph)).toBeNull()
    expect(cycleThrough('a', ['a'], graph)).toEqual(['a', 'a'])
  })
})
