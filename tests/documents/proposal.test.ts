// An import plan as change-request items (server/documents/proposal.ts), in process: the bodies the direct
// routes take, `null` for what the document drops, archive state as archive/restore items around the update,
// and the plan's order and versions.
import { describe, expect, test } from 'bun:test'
import { planImport, type CurrentState } from '../../server/documents/plan'
import { proposalItems } from '../../server/documents/proposal'
import type { FlagshipDocument } from '../../server/documents/model'

const state: CurrentState = {
  environments: ['development', 'production'],
  segments: [],
  flags: [
    {
      key: 'old',
      version: 4,
      body: { enabled: false, value: true, archived: true, archived_at: '2026-01-01T00:00:00.000Z', description: 'gone' },
    },
    { key: 'live', version: 2, body: { enabled: true, value: true, owner: 'web' } },
  ],
  configs: [{ key: 'limits', version: 3, body: { value: { max: 1 }, environments: { production: { value: { max: 5 } } } } }],
}
const itemsOf = (doc: FlagshipDocument, prune = false) => {
  const plan = planImport(doc, state, { prune })
  expect(plan.errors).toEqual([])
  return proposalItems(plan, state)
}

describe('proposal items', () => {
  test('an update is the whole new entry with null for the fields the document drops', () => {
    expect(itemsOf({ flagship: 1, configs: [{ key: 'limits', value: { max: 2 } }] } as FlagshipDocument)).toEqual([
      { resource_type: 'config', key: 'limits', action: 'update', base_version: 3, body: { value: { max: 2 }, environments: null } },
    ])
  })
  test('restoring a flag comes before its update; archiving one after; an unchanged content makes no update', () => {
    const doc = {
      flagship: 1,
      flags: [
        { key: 'old', enabled: true, value: true },
        { key: 'live', enabled: true, value: true, owner: 'web', archived: true },
      ],
    } as FlagshipDocument
    expect(itemsOf(doc)).toEqual([
      { resource_type: 'flag', key: 'live', action: 'archive', base_version: 2 },
      { resource_type: 'flag', key: 'old', action: 'restore', base_version: 4 },
      { resource_type: 'flag', key: 'old', action: 'update', base_version: 4, body: { enabled: true, value: true, description: null } },
    ])
  })
  test('a create carries its key (and an archive when the document archives it); prune deletes without a body', () => {
    const doc = {
      flagship: 1,
      flags: [{ key: 'new', enabled: false, value: 'x', archived: true }],
      configs: [],
    } as unknown as FlagshipDocument
    expect(itemsOf(doc, true)).toEqual([
      { resource_type: 'flag', key: 'new', action: 'create', base_version: null, body: { key: 'new', enabled: false, value: 'x' } },
      { resource_type: 'flag', key: 'new', action: 'archive', base_version: null },
      { resource_type: 'config', key: 'limits', action: 'delete', base_version: 3 },
      { resource_type: 'flag', key: 'old', action: 'delete', base_version: 4 },
      { resource_type: 'flag', key: 'live', action: 'delete', base_version: 2 },
    ])
  })
})
