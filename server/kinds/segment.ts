// Segments: the kind's definition (kind.ts): named condition lists that flag rules test (in_segment /
// not_in_segment). Every route, reads included, needs write:flags (segments exist to target flags).
import { t, type Static } from 'elysia'
import type { Condition } from '../engine/types'
import * as S from '../schemas'
import { agree, type SameKeys } from '../schemas/common'
import type { DocumentBody, DocumentKind, StoredDocument } from './kind'

/** A stored segment's body (a type, not an interface, so that it is also the open record the store keeps). */
export type SegmentBody = { conditions: Condition[] }

/** A field added to the segment schema and not to the stored body (or the other way round) fails here. */
agree<SameKeys<SegmentBody, Omit<Static<typeof S.Segment>, 'version' | 'created_at' | 'updated_at'>>>()

/** A segment in the as-code document: as POST /segments takes it. */
export type SegmentEntry = { key: string } & SegmentBody

export function segmentView(row: StoredDocument<SegmentBody>) {
  return { conditions: row.body.conditions ?? [], version: row.version, created_at: row.createdAt, updated_at: row.updatedAt }
}

export const segmentKind = {
  type: 'segment',
  plural: 'segments',
  label: 'Segment',
  notFoundCode: 'SEGMENT_NOT_FOUND',
  read: 'write:flags',
  write: 'write:flags',
  schemas: { view: S.Segment, create: S.SegmentCreate, patch: S.SegmentPatch },
  view: segmentView,
  eventData: (row: StoredDocument<SegmentBody>) => ({ conditions: row.body.conditions, version: row.version }),
  entry: {
    fields: ['key', 'conditions'],
    toBody: (entry: SegmentEntry) => ({ conditions: entry.conditions }),
    of: (key: string, body: DocumentBody) => ({ key, conditions: body.conditions ?? [] }),
  },
  items: { create: S.SegmentCreate, update: S.SegmentPatch, delete: t.Object({ force: t.Optional(t.Boolean()) }) },
} as const satisfies DocumentKind<'segment', SegmentBody>
