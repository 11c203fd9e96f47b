// A relay's snapshot (Snapshots.serveProject): fed whole documents by its upstream, it keeps the compiled
// form of every document whose stamp did not change, compiles what changed, drops what went, and compiles
// everything again only when a segment changed (flags depend on segments). It never touches a store.
import { expect, test } from 'bun:test'
import { Snapshots } from '../../server/cache/snapshots'
import type { DocumentRow } from '../../server/store/documents'

const project = { id: 'p1', slug: 'p1', name: 'P', environments: ['production'], createdAt: '', updatedAt: '' }
// Rows of whichever kind the test puts them under (never: any kind's body).
const row = (key: string, body: Record<string, unknown>, version = 1): DocumentRow<never> => ({
  projectId: 'p1',
  key,
  body: body as never,
  version,
  createdAt: 't0',
  updatedAt: `t${version}`,
})
const flag = (key: string, value: unknown, version = 1, extra: Record<string, unknown> = {}) =>
  row(key, { enabled: true, value, ...extra }, version)
const segment = (version: number) =>
  row('pros', { conditions: [{ property: 'plan', operator: 'equals', value: version === 1 ? 'pro' : 'enterprise' }] }, version)
const inSegment = { targeting: { rules: [{ conditions: [{ property: 'plan', operator: 'in_segment', value: 'pros' }], value: true }] } }

test('unchanged documents keep their compiled form; changed ones are compiled; removed ones go', () => {
  const snapshots = new Snapshots(undefined)
  snapshots.serveProject(project, {
    flags: [flag('a', 1), flag('b', 2), flag('c', false, 1, inSegment)],
    configs: [row('cfg', { value: 1 })],
    segments: [segment(1)],
  })
  const snap = snapshots.project('p1')!
  const [a, c] = [snap.flags.get('a')!, snap.flags.get('c')!]
  const revision = snap.revision
  snapshots.serveProject(project, {
    flags: [flag('a', 1), flag('b', 3, 2), flag('c', false, 1, inSegment)],
    configs: [row('cfg', { value: 1 })],
    segments: [segment(1)],
  })
  expect(snap.flags.get('a')).toBe(a)
  expect(snap.flags.get('c')).toBe(c)
  expect(snap.flags.get('b')!.row.body.value).toBe(3)
  expect(snap.revision).toBeGreaterThan(revision)
  snapshots.serveProject(project, { flags: [flag('a', 1), flag('c', false, 1, inSegment)], configs: [], segments: [segment(1)] })
  expect([...snap.flags.keys()].sort()).toEqual(['a', 'c'])
  expect(snap.configs.size).toBe(0)
})

test('a changed segment compiles the flags again, so they answer by the new conditions', () => {
  const snapshots = new Snapshots(undefined)
  snapshots.serveProject(project, { flags: [flag('c', false, 1, inSegment)], configs: [], segments: [segment(1)] })
  const snap = snapshots.project('p1')!
  const evaluate = (plan: string) => snap.flags.get('c')!.compiled.evaluate({ plan } as never).value
  expect(evaluate('pro')).toBe(true)
  snapshots.serveProject(project, { flags: [flag('c', false, 1, inSegment)], configs: [], segments: [segment(2)] })
  expect(evaluate('pro')).toBe(false)
  expect(evaluate('enterprise')).toBe(true)
})

test('relay snapshots have no store: reading one is an error, not a silent empty answer', async () => {
  await expect(new Snapshots(undefined).reconcile()).rejects.toThrow(/no store/)
})
