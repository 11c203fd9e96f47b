// Bounded evaluation cost (docs/behaviour.md §8): patterns bounded when written, a work budget per
// evaluation that a long context cannot get past, and prerequisites evaluated at most once per evaluation.
// Work is counted in the engine's own units (budget.ts), so these checks are exact, not timed.
import { describe, expect, test } from 'bun:test'
import {
  compileFlag,
  EVALUATION_BUDGET,
  EvaluationBudgetExceeded,
  MAX_PATTERN_PROGRAM,
  MAX_PATTERNS_PROGRAM,
  MAX_REPEAT,
  prerequisiteReach,
  sharingPrerequisites,
  validateFlag,
  withEvaluationBudget,
  workSpent,
  type CompiledFlag,
  type FlagDefinition,
} from '../../server/engine'
import * as compile from '../../server/engine/compile'

const segmentKeys = new Set<string>()
const matchesFlag = (patterns: string[], rules = 1): FlagDefinition => ({
  key: 'f',
  enabled: true,
  value: false,
  targeting: {
    rules: Array.from({ length: rules }, () => ({
      conditions: patterns.map((p) => ({ property: 'text', operator: 'matches' as const, value: p })),
      value: true,
    })),
  },
})
const issues = (flag: FlagDefinition) => validateFlag(flag, { segmentKeys }).map((i) => `${i.path}: ${i.message}`)

describe('patterns are bounded when written', () => {
  test('a counted repetition over the limit is refused, naming the limit', () => {
    expect(issues(matchesFlag([`a{${MAX_REPEAT + 1}}`]))).toEqual([expect.stringContaining(`at most ${MAX_REPEAT} times`)])
    expect(issues(matchesFlag([`(?:a|b){2,${MAX_REPEAT + 1}}`]))).toEqual([expect.stringContaining(`at most ${MAX_REPEAT} times`)])
    expect(issues(matchesFlag([`a{${MAX_REPEAT}}`]))).toEqual([])
  })
  test('a pattern whose program is too large is refused, naming the limit', () => {
    // Nested repetitions multiply: 10 × 10 × 30 copies.
    expect(issues(matchesFlag(['(?:(?:(?:ab){10}){10}){30}']))).toEqual([
      expect.stringMatching(new RegExp(`(exceed|at most) ${MAX_PATTERN_PROGRAM}`)),
    ])
    expect(issues(matchesFlag(['(?:(?:a{1,10}){1,10}){1,10}c{1,100}d{1,100}']))).toEqual([
      expect.stringMatching(new RegExp(`(exceed|at most) ${MAX_PATTERN_PROGRAM}`)),
    ])
  })
  test("all of a flag's patterns together are bounded, and the ones past the limit are not even compiled", () => {
    const big = '[a-z]{100}'.repeat(9) // about 900 instructions each
    const found = issues(matchesFlag([big, big, big, big, big, big], 3))
    expect(found).toEqual([`targeting.rules: its patterns (matches) together compile to more than ${MAX_PATTERNS_PROGRAM} instructions`])
    expect(issues(matchesFlag([big, big, big, big, big, big], 1))).toEqual([])
  })
})

describe('a work budget per evaluation', () => {
  // The worst flag validation allows for text: as many patterns as the flag's total allows, each as costly
  // as a pattern may be, one per rule (so that none stops the others from being tried).
  const worstPattern = '(?:a?){50}a{50}b' // program 153: 60 of them fit the flag's total
  const worst: FlagDefinition = {
    key: 'w',
    enabled: true,
    value: false,
    targeting: {
      rules: Array.from({ length: 60 }, () => ({
        conditions: [{ property: 'text', operator: 'matches' as const, value: worstPattern }],
        value: true,
      })),
    },
  }
  test('the worst allowed flag is accepted', () => expect(issues(worst)).toEqual([]))
  const compiled = compileFlag(worst, new Map())

  test('a long context ends in EvaluationBudgetExceeded before the work is done, never past the budget', () => {
    for (const length of [1_000, 24_000, 1_000_000]) {
      const before = workSpent()
      expect(() => compiled.evaluate({ custom: { text: 'a'.repeat(length) } })).toThrow(EvaluationBudgetExceeded)
      expect(workSpent() - before).toBeLessThanOrEqual(EVALUATION_BUDGET)
    }
  })
  test('an ordinary context is evaluated as before, within the budget', () => {
    const before = workSpent()
    expect(compiled.evaluate({ custom: { text: 'hello world' } }).value).toBe(false)
    expect(workSpent() - before).toBeLessThan(EVALUATION_BUDGET)
    expect(compiled.evaluate({ custom: { text: `${'a'.repeat(60)}b` } }).value).toBe(true)
  })
  test('each evaluation has its own budget; a scope shares one between several', () => {
    const ordinary = { custom: { text: 'a'.repeat(20) } }
    for (let i = 0; i < 50; i++) compiled.evaluate(ordinary) // never accumulates
    expect(() =>
      withEvaluationBudget(EVALUATION_BUDGET, () => {
        for (let i = 0; i < 50; i++) compiled.evaluate(ordinary)
      }),
    ).toThrow(EvaluationBudgetExceeded)
  })
  test('substring searches over a long text are charged too (a 1 MiB attribute against 20,000 contains)', () => {
    const flag = compileFlag(
      {
        key: 'c',
        enabled: true,
        value: false,
        targeting: {
          rules: Array.from({ length: 200 }, () => ({
            conditions: Array.from({ length: 100 }, () => ({ property: 'text', operator: 'not_contains' as const, value: 'zz' })),
            value: true,
          })),
        },
      },
      new Map(),
    )
    const before = workSpent()
    expect(() => flag.evaluate({ custom: { text: 'a'.repeat(1 << 20) } })).toThrow(EvaluationBudgetExceeded)
    expect(workSpent() - before).toBeLessThanOrEqual(EVALUATION_BUDGET)
    // Short text: 20,000 condition tests fit.
    expect(flag.evaluate({ custom: { text: 'abc' } }).reason).toBe('targeting')
  })
  test('a hostile context object (a throwing getter) still gets the off value, not the budget error', () => {
    const hostile = {
      get custom(): never {
        throw new Error('boom')
      },
    }
    expect(compiled.evaluate(hostile as never).reason).toBe('disabled')
  })
})

describe('prerequisites: memoised and bounded', () => {
  /** A lattice: `levels` levels of `width` flags, each requiring every flag of the level below. */
  function lattice(levels: number, width: number) {
    const defs = new Map<string, FlagDefinition>()
    for (let l = 0; l < levels; l++) {
      for (let w = 0; w < width; w++) {
        const key = `l${l}-${w}`
        defs.set(key, {
          key,
          enabled: true,
          value: true,
          prerequisites: l === 0 ? [] : Array.from({ length: width }, (_, v) => ({ key: `l${l - 1}-${v}`, value: true })),
        })
      }
    }
    const compiled = new Map<string, CompiledFlag>()
    for (const [key, def] of defs)
      compiled.set(
        key,
        compileFlag(def, new Map(), (k) => compiled.get(k)),
      )
    return compiled
  }

  test('a lattice of 4 flags per level, 11 levels: each prerequisite is evaluated once per evaluation', () => {
    const flags = lattice(11, 4)
    const top = flags.get('l10-0')!
    expect(top.evaluate({}).reason).toBe('default')
    // 40 flags below the top one; without the memo 4 + 16 + … + 4^10 (about 1.4 million).
    expect(compile.prerequisiteEvaluations).toBe(40)
  })
  test('a bulk evaluation shares them between flags: 44 flags, 40 prerequisite evaluations in all', () => {
    const flags = lattice(11, 4)
    let total = 0
    const context = {}
    sharingPrerequisites(() => {
      for (const f of flags.values()) {
        f.evaluate(context)
        total = compile.prerequisiteEvaluations
      }
    })
    expect(total).toBeLessThanOrEqual(44)
  })
  test('a failing prerequisite deep in the lattice is seen by every path (the memo changes no answer)', () => {
    const defs: FlagDefinition[] = [
      { key: 'a', enabled: false, value: true },
      { key: 'b', enabled: true, value: true, prerequisites: [{ key: 'a', value: true }] },
      {
        key: 'c',
        enabled: true,
        value: true,
        prerequisites: [
          { key: 'a', value: true },
          { key: 'b', value: true },
        ],
      },
    ]
    const compiled = new Map<string, CompiledFlag>()
    for (const d of defs)
      compiled.set(
        d.key,
        compileFlag(d, new Map(), (k) => compiled.get(k)),
      )
    expect(compiled.get('c')!.evaluate({}).reason).toBe('prerequisite_failed')
    expect(compiled.get('b')!.evaluate({}).reason).toBe('prerequisite_failed')
  })
  test('depth and reach of a graph', () => {
    const chain = (k: string) => (Number(k) < 40 ? [String(Number(k) + 1)] : [])
    expect(prerequisiteReach('0', chain, 100)).toEqual({ depth: 40, reach: 40 })
    const wide = (k: string) => (k === 'root' ? Array.from({ length: 150 }, (_, i) => `x${i}`) : [])
    expect(prerequisiteReach('root', wide, 100).reach).toBe(101) // stops counting past the limit
  })
})
