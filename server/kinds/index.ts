// The kinds of versioned document, each defined once (kind.ts): everything generic iterates KINDS or looks
// a kind up by its type or plural. The order is the as-code document's (segments before the flags that use
// them, configs last), which is also the order an import writes them in.
import { configKind } from './config'
import { flagKind } from './flag'
import type { BodyOf } from './kind'
import { agree, type SameKeys } from '../schemas/common'
import type { DocumentType } from '../store/vocabulary/changes'
import { segmentKind } from './segment'

export * from './kind'
export { flagKind, flagView, flagEventData, type FlagBody, type FlagEntry } from './flag'
export { configKind, configView, type ConfigBody, type ConfigEntry } from './config'
export { segmentKind, segmentView, type SegmentBody, type SegmentEntry } from './segment'

export const KINDS = [segmentKind, flagKind, configKind] as const
export type AnyKind = (typeof KINDS)[number]
export type KindType = AnyKind['type']
// The vocabulary's document types (what the tables, audit and events record) are exactly these kinds.
agree<SameKeys<Record<KindType, true>, Record<DocumentType, true>>>()
/** An as-code document's section: a kind's plural. */
export type KindPlural = AnyKind['plural']

/** The resource types, in KINDS' order (non-empty, as enum schemas take them). */
export const KIND_TYPES: readonly [KindType, ...KindType[]] = [KINDS[0].type, ...KINDS.slice(1).map((k) => k.type)]

type ByType = { [K in AnyKind as K['type']]: K }
type ByPlural = { [K in AnyKind as K['plural']]: K }
// Built from KINDS; the mapped types say which kind each entry is (Object.fromEntries cannot).
/** The kinds by resource type. */
export const KIND = Object.fromEntries(KINDS.map((k) => [k.type, k])) as ByType
/** The kinds by plural. */
export const KIND_OF_PLURAL = Object.fromEntries(KINDS.map((k) => [k.plural, k])) as ByPlural
/** The stored bodies by resource type. */
export type Bodies = { [K in AnyKind as K['type']]: BodyOf<K> }

/** `f` of every kind, by plural (an as-code document's sections, the store's repositories). */
export function perKind<T>(f: (kind: AnyKind) => T): Record<KindPlural, T> {
  const out: Partial<Record<KindPlural, T>> = {}
  for (const kind of KINDS) out[kind.plural] = f(kind)
  return out as Record<KindPlural, T>
}
