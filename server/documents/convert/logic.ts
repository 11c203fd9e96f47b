// Boolean logic over our conditions, shared by the converters. The source tools write OR, NOT and
// nested groups; a Flagship rule is an AND of conditions and rules are tried in order (the first that
// holds wins), so every source predicate is brought to a disjunctive normal form: a list of
// alternatives, each one rule's conditions. NOT of a group of conditions becomes `not_in_segment` of a
// segment made for it (segments are ANDs and may not nest), so negation stays exact.
import type { Condition } from '../../engine'

/** One AND-ed term: a condition, or the negation of an AND of conditions (a made-up segment). */
export type Literal = { cond: Condition } | { not: Condition[] }
/** An AND of literals. */
export type Conjunction = Literal[]
/** An OR of conjunctions: `[]` never holds, `[[]]` always holds. */
export type Dnf = Conjunction[]

export const TRUE: Dnf = [[]]
export const FALSE: Dnf = []
/** More alternatives than this and a predicate is refused (reported) rather than blown up into rules. */
export const MAX_ALTERNATIVES = 32

export class TooComplex extends Error {}

export const lit = (cond: Condition): Dnf => [[{ cond }]]

export function and(...parts: Dnf[]): Dnf {
  let out: Dnf = TRUE
  for (const p of parts) {
    const next: Dnf = []
    for (const a of out) for (const b of p) next.push([...a, ...b])
    if (next.length > MAX_ALTERNATIVES) throw new TooComplex(`more than ${MAX_ALTERNATIVES} alternatives`)
    out = next
  }
  return out
}

export function or(...parts: Dnf[]): Dnf {
  const out = parts.flat()
  if (out.length > MAX_ALTERNATIVES) throw new TooComplex(`more than ${MAX_ALTERNATIVES} alternatives`)
  return out
}

// Operators whose twin is their exact negation in our engine (operators.ts: each not_* is the negation
// of its positive twin, a missing property included).
const TWIN: Record<string, string> = {
  equals: 'not_equals',
  not_equals: 'equals',
  in: 'not_in',
  not_in: 'in',
  contains: 'not_contains',
  not_contains: 'contains',
  exists: 'not_exists',
  not_exists: 'exists',
  in_segment: 'not_in_segment',
  not_in_segment: 'in_segment',
}

const isSegmentRef = (c: Condition) => c.operator === 'in_segment' || c.operator === 'not_in_segment'

function negateLiteral(l: Literal): Dnf {
  if ('cond' in l) {
    const twin = TWIN[l.cond.operator]
    if (twin !== undefined) return lit({ ...l.cond, operator: twin as Condition['operator'] })
    return [[{ not: [l.cond] }]]
  }
  // NOT(NOT(a AND b)) = a AND b
  return [l.not.map((cond) => ({ cond }))]
}

/** NOT of a predicate, exact under our engine's semantics. */
export function not(p: Dnf): Dnf {
  const terms = p.map((conj): Dnf => {
    if (conj.length === 0) return FALSE
    const plain = conj.every((l) => 'cond' in l && !isSegmentRef(l.cond))
    // NOT(a AND b AND c): one made-up segment when the conditions can live in a segment, else
    // NOT a OR NOT b OR NOT c.
    if (plain && conj.length > 1) return [[{ not: conj.map((l) => (l as { cond: Condition }).cond) }]]
    return or(...conj.map(negateLiteral))
  })
  return and(...terms)
}

/** Makes the segments that negated groups need, named after `owner`, and turns a conjunction into
 *  a rule's condition list. The same group gets the same segment. */
export class SegmentMaker {
  readonly made: { key: string; conditions: Condition[] }[] = []
  private byContent = new Map<string, string>()
  constructor(private taken: Set<string>) {}

  conditions(conj: Conjunction, owner: string): Condition[] {
    return conj.map((l) => ('cond' in l ? l.cond : { operator: 'not_in_segment', value: this.segmentFor(l.not, owner) }))
  }

  private segmentFor(conditions: Condition[], owner: string): string {
    const content = JSON.stringify(conditions)
    const known = this.byContent.get(content)
    if (known !== undefined) return known
    const key = freeKey(`${owner.slice(0, 110)}.not`, this.taken)
    this.byContent.set(content, key)
    this.made.push({ key, conditions })
    return key
  }
}

/** `base`, or `base-2`, `base-3`... whichever is not taken yet; marks it taken. */
export function freeKey(base: string, taken: Set<string>): string {
  let key = base
  for (let n = 2; taken.has(key); n++) key = `${base}-${n}`
  taken.add(key)
  return key
}

/** A name made to fit KEY_PATTERN (letters, digits, . _ -; at most 128; starting with a letter or digit). */
export function keyOf(name: string): string {
  const k = name
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 128)
  return k === '' ? 'x' : k
}

/** A tag made to fit ENV_PATTERN (lower case letters, digits, _ -; at most 63). */
export function tagOf(name: string): string | undefined {
  const t = name
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .slice(0, 63)
  return t === '' ? undefined : t
}
