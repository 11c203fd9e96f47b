// The work one evaluation may do (docs/behaviour.md §8, "bounded evaluation cost"). A client chooses the
// context, and the text a `matches` or `contains` condition reads is the one cost it can grow: re2js is
// linear, but linear in pattern program size × text length, so a 24 kB attribute against many patterns
// froze the event loop for seconds. Every condition test is therefore charged in work units (1 unit per
// condition, program size × (text length + 1) per regex test, text length / 64 per substring search) against
// a budget; a test that would overrun it is not run, and the evaluation ends with EvaluationBudgetExceeded
// (the server answers 400 EVALUATION_TOO_COSTLY, the SDK serves the caller's fallback). Evaluation is
// synchronous, so the meter is plain module state: no two evaluations ever interleave.

/** Work units one evaluation (prerequisites included) may spend. A unit is one regex instruction step:
 *  about a nanosecond for ordinary patterns, up to ~170 ns for the costliest ones re2js runs on short texts,
 *  so this is at most some 35 ms, and room for a hundred ordinary pattern tests on 40-character texts. */
export const EVALUATION_BUDGET = 200_000
/** Work units a whole bulk evaluation (every flag for one context) may spend. */
export const BULK_EVALUATION_BUDGET = 400_000

export class EvaluationBudgetExceeded extends Error {
  constructor(readonly budget: number) {
    super(
      `evaluating this flag for this context needs more than ${budget} work units (long attribute values tested by many patterns); ` +
        `send shorter attribute values`,
    )
    this.name = 'EvaluationBudgetExceeded'
  }
}

/** The meter: `remaining` of the current evaluation (or scope), and a running total for tests and bench. */
export const meter = { remaining: EVALUATION_BUDGET, budget: EVALUATION_BUDGET, scoped: 0, spent: 0 }

/** Charges `units`; throws (before the work is done) when the budget would be overrun. */
export function charge(units: number): void {
  if (units > meter.remaining) {
    meter.remaining = -1
    throw new EvaluationBudgetExceeded(meter.budget)
  }
  meter.remaining -= units
  meter.spent += units
}

/** A top-level evaluation starts: a fresh budget, unless a scope (withEvaluationBudget) holds one. */
export function startEvaluation(): void {
  if (meter.scoped === 0) {
    meter.remaining = EVALUATION_BUDGET
    meter.budget = EVALUATION_BUDGET
  }
}

/** Runs `fn` (several evaluations: a bulk request, an explanation) under one budget of `units`. */
export function withEvaluationBudget<T>(units: number, fn: () => T): T {
  const saved = { remaining: meter.remaining, budget: meter.budget }
  meter.scoped++
  meter.remaining = units
  meter.budget = units
  try {
    return fn()
  } finally {
    meter.scoped--
    meter.remaining = saved.remaining
    meter.budget = saved.budget
  }
}

/** Work units spent so far by every evaluation in this process (tests and bench read differences). */
export const workSpent = (): number => meter.spent
