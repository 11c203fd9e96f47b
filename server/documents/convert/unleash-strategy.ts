// One Unleash strategy as a "piece": who it reaches (a predicate), what it serves (on, one variant or a
// weighted split) and, for a partial rollout, the share and the attribute it sticks to. unleash.ts then
// lays the pieces of every environment out as one flag.
import type { Condition } from '../../engine'
import { and, lit, TooComplex, TRUE, type Dnf } from './logic'
import { fieldOf, mapConstraint, type UnleashConstraint } from './unleash-constraints'
import type { UnleashStrategy, UnleashVariant } from './unleash-input'

export type Serve = { kind: 'on' } | { kind: 'variant'; name: string } | { kind: 'split'; variants: { name: string; weight: number }[] }
export interface Piece {
  label: string
  dnf: Dnf
  serve: Serve
  /** 0 < pct <= 100 */
  pct: number
  /** the context attribute a partial rollout or a split sticks to */
  attribute: string | null
}
/** How a segment reference is written: `in_segment` of a kept segment, or its predicate inlined. */
export type SegmentRef = { key: string } | { dnf: Dnf } | { unmapped: string }

export interface StrategyContext {
  now: number
  segment: (id: number) => SegmentRef | undefined
  variantName: (name: string) => string
  /** reports what is not exact, about this strategy */
  note: (message: string) => void
}

/** The predicate of constraints (AND-ed), or why there is none. */
export function constraintsDnf(constraints: UnleashConstraint[], ctx: Pick<StrategyContext, 'now' | 'note'>): Dnf | string {
  let dnf = TRUE
  for (const c of constraints) {
    const m = mapConstraint(c, ctx.now)
    if ('unmapped' in m) return `constraint on ${c.contextName}: ${m.unmapped}`
    if (m.note) ctx.note(m.note)
    dnf = and(dnf, m.dnf)
  }
  return dnf
}

// Unleash's stickiness names as our attributes; `default` is userId, then sessionId, then random there.
function attributeOf(stickiness: string | undefined, ctx: StrategyContext, partial: boolean): string | null {
  if (stickiness === undefined || stickiness === '' || stickiness === 'default') {
    if (partial)
      ctx.note(
        'stickiness "default" falls back to sessionId, then to a random value, in Unleash; ' +
          'here contexts without user_id are outside the rollout',
      )
    return 'user_id'
  }
  if (stickiness === 'random') return null
  return fieldOf(stickiness)
}

function serveOf(variants: UnleashVariant[], ctx: StrategyContext): Serve {
  const weighted = variants.filter((v) => v.weight > 0)
  if (variants.some((v) => Array.isArray(v.overrides) && v.overrides.length > 0))
    ctx.note('variant overrides are not converted (the weighted split applies to everyone)')
  if (weighted.length === 0) return { kind: 'on' } // a total weight of 0 assigns no variant in Unleash
  if (weighted.length === 1) return { kind: 'variant', name: ctx.variantName(weighted[0]!.name) }
  return { kind: 'split', variants: weighted.map((v) => ({ name: ctx.variantName(v.name), weight: v.weight })) }
}

/** The piece of a strategy; a string says why it cannot be converted; null: it never reaches anyone. */
export function strategyPiece(s: UnleashStrategy, ctx: StrategyContext): Piece | string | null {
  const p = s.parameters ?? {}
  const label = s.title ? `"${s.title}" (${s.name})` : s.name
  try {
    let dnf = constraintsDnf(s.constraints ?? [], ctx)
    if (typeof dnf === 'string') return dnf
    for (const id of s.segments ?? []) {
      const ref = ctx.segment(id)
      if (ref === undefined) return `segment ${id} is not defined (give Unleash's segment list, GET /api/admin/segments)`
      if ('unmapped' in ref) return ref.unmapped
      dnf = and(dnf, 'key' in ref ? lit({ operator: 'in_segment', value: ref.key } as Condition) : ref.dnf)
    }
    let pct = 100
    let stickiness: string | undefined
    switch (s.name) {
      case 'default':
        break
      case 'userWithId': {
        const ids = String(p.userIds ?? '')
          .split(',')
          .map((id) => id.trim())
          .filter((id) => id !== '')
        dnf = and(dnf, lit({ property: 'user_id', operator: 'in', value: ids }))
        break
      }
      case 'flexibleRollout':
        pct = Number(p.rollout)
        stickiness = p.stickiness || 'default'
        break
      case 'gradualRolloutUserId':
        pct = Number(p.percentage)
        stickiness = 'userId'
        break
      case 'gradualRolloutSessionId':
        pct = Number(p.percentage)
        stickiness = 'sessionId'
        break
      default:
        return `strategy ${s.name} has no equivalent`
    }
    if (!Number.isFinite(pct) || pct <= 0) return null // Unleash: `percentage > 0 && ...`
    pct = Math.min(pct, 100)
    const serve = serveOf(s.variants ?? [], ctx)
    let attribute: string | null = null
    if (pct < 100) {
      attribute = attributeOf(stickiness, ctx, true)
      if (attribute === null) return 'a random rollout (stickiness "random") has no equivalent'
    } else if (stickiness !== undefined && stickiness !== 'default') {
      // Unleash needs the stickiness field even at 100 %.
      const a = attributeOf(stickiness, ctx, false)
      if (a !== null) dnf = and(dnf, lit({ property: a, operator: 'exists' }))
    }
    if (serve.kind === 'split') {
      const variantStickiness = s.variants?.[0]?.stickiness || stickiness || 'default'
      const a = attributeOf(variantStickiness, ctx, false)
      if (a === null) return 'a random variant split (stickiness "random") has no equivalent'
      // Unleash needs the rollout's own stickiness field (outside `default`), so then the split's is there.
      const guaranteed = stickiness !== undefined && stickiness !== 'default' && fieldOf(stickiness) === a
      if (!guaranteed)
        ctx.note(
          `variants stick to "${variantStickiness}": Unleash falls back to other fields or a random value ` +
            `when the context lacks ${a}; here such contexts are off`,
        )
      if (attribute !== null && attribute !== a)
        ctx.note(`the rollout sticks to ${attribute} and the variants to ${a}; here both stick to ${attribute}`)
      attribute ??= a
    }
    return { label, dnf, serve, pct, attribute }
  } catch (e) {
    if (e instanceof TooComplex) return `its constraints need ${e.message}`
    throw e
  }
}
