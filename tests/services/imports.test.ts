// Importing documents in process, on both stores: a failure on the last of 500 writes rolls everything
// back (no row, no audit entry, no webhook outbox row, no notice); a 10,000-flag document within the
// 10 MiB import limit plans and applies, and applying it again changes nothing.
import { describe, expect, test } from 'bun:test'
import { actor, DIALECTS, inProcessServices } from '../helpers/in-process'
import { requireServices } from '../helpers/requirements'
import { MAX_IMPORT_BYTES, parseDocumentText } from '../../server/documents/parse'
import { serializeDocument } from '../../server/documents/serialize'
import type { FlagshipDocument } from '../../server/documents/model'

const pgReady = await requireServices({ postgres: true })

/** `n` flags like real ones: targeting, a rollout, tags, an override. */
export const manyFlags = (n: number, prefix = 'f'): FlagshipDocument => ({
  flagship: 1,
  flags: Array.from({ length: n }, (_, i) => ({
    key: `${prefix}-${String(i).padStart(5, '0')}`,
    enabled: i % 2 === 0,
    value: i % 3 === 0,
    targeting: {
      rules: [{ conditions: [{ property: 'plan', operator: 'in', value: ['pro', 'enterprise'] }], value: true }],
      rollout: { percentage: i % 100, attribute: 'user_id' },
    },
    environments: { production: { enabled: false } },
    tags: ['bulk'],
    description: `flag number ${i}`,
  })),
})

for (const dialect of DIALECTS) {
  describe.skipIf(dialect === 'postgres' && !pgReady)(`imports in process: ${dialect}`, () => {
    const fx = inProcessServices(dialect)

    test('a failure on the last of 500 writes rolls everything back: no row, audit entry, outbox row or notice', async () => {
      await fx.services.webhooks.create(actor, { url: 'https://example.com/hook', events: ['*'] })
      const doc = manyFlags(500, 'r')
      const before = { audits: await fx.auditCount(), notices: fx.notices.length }
      const repo = fx.store.flags
      const insertMany = repo.insertMany
      let calls = 0
      // A real store whose 500th insert fails (as a lost connection or a full disk would); the import
      // writes its new rows with insertMany, here one row at a time so the 499 before it are written.
      repo.insertMany = async (db, rows) => {
        for (const row of rows) {
          if (++calls === 500) throw new Error('injected failure on the last write')
          await repo.insert(db, row)
        }
      }
      try {
        await expect(fx.services.imports.apply(actor, doc, { prune: false })).rejects.toThrow('injected failure')
      } finally {
        repo.insertMany = insertMany
      }
      expect(calls).toBe(500)
      expect((await fx.store.flags.all(fx.store.db, 'default')).length).toBe(0)
      expect(await fx.auditCount()).toBe(before.audits)
      expect(fx.notices.length).toBe(before.notices)
      expect(await fx.store.deliveries.backlog(fx.store.db)).toBe(0)
    })

    test('a 10,000-flag document within the import limit plans and applies; the second apply is all unchanged', async () => {
      const text = serializeDocument(manyFlags(10_000), 'json')
      expect(Buffer.byteLength(text)).toBeLessThan(MAX_IMPORT_BYTES)
      const parsed = parseDocumentText(text, { maxBytes: MAX_IMPORT_BYTES })
      expect(parsed.errors).toEqual([])
      const plan = await fx.services.imports.plan(actor, parsed.document!, false)
      expect(plan.summary).toEqual({ create: 10_000, update: 0, delete: 0, unchanged: 0 })
      const applied = await fx.services.imports.apply(actor, parsed.document!, { prune: false, planId: plan.plan_id })
      expect(applied.summary.create).toBe(10_000)
      const again = await fx.services.imports.apply(actor, parsed.document!, { prune: false })
      expect(again.summary).toEqual({ create: 0, update: 0, delete: 0, unchanged: 10_000 })
      expect(again.change_set).toBeNull()
      const yaml = serializeDocument(manyFlags(10_000), 'yaml')
      expect(Buffer.byteLength(yaml)).toBeLessThan(MAX_IMPORT_BYTES)
      expect(parseDocumentText(yaml, { maxBytes: MAX_IMPORT_BYTES }).errors).toEqual([])
    }, 240_000)
  })
}
