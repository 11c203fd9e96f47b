// The kinds of versioned document (server/kinds/) are the one definition the document format, change
// requests and the store's vocabulary read: what each declares agrees with what those show.
import { expect, test } from 'bun:test'
import { documentJsonSchema } from '../../server/documents/json-schema'
import { KINDS as SECTIONS, TOP_FIELDS } from '../../server/documents/model'
import { KINDS } from '../../server/kinds'
import { ITEM_BODIES } from '../../server/services/document-ops'
import { ITEM_RESOURCE_TYPES } from '../../server/store/vocabulary/change-requests'
import { RESOURCE_TYPES } from '../../server/store/vocabulary/changes'

const entrySchema = (plural: string) =>
  (documentJsonSchema().properties as Record<string, { items: { properties: Record<string, unknown> } }>)[plural]!.items

test("each kind's entry fields are its document section's, in the written order", () => {
  for (const kind of KINDS) expect<string[]>([...kind.entry.fields]).toEqual(Object.keys(entrySchema(kind.plural).properties))
})

test("the document's sections are the kinds' plurals, in the kinds' order", () => {
  expect([...SECTIONS]).toEqual(['segments', 'flags', 'configs'])
  expect(TOP_FIELDS.slice(3)).toEqual(KINDS.map((k) => k.plural))
})

test('change requests carry every kind, with the bodies each declares', () => {
  expect(Object.keys(ITEM_BODIES).sort()).toEqual([...ITEM_RESOURCE_TYPES].sort())
  for (const kind of KINDS) expect(ITEM_BODIES[kind.type]).toBe(kind.items)
  for (const kind of KINDS) expect(RESOURCE_TYPES).toContain(kind.type)
})
