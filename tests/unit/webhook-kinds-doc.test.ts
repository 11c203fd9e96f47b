// docs/webhooks.md lists every event kind the service accepts (server/store/vocabulary/changes.ts), and no
// other: its "Event kinds" table once listed sixteen of twenty-three.
import { expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { EVENT_KINDS } from '../../server/store/vocabulary/changes'

test("docs/webhooks.md's event kinds are exactly the vocabulary's", () => {
  const doc = readFileSync(join(import.meta.dir, '..', '..', 'docs', 'webhooks.md'), 'utf8')
  const section = doc.slice(doc.indexOf('## Event kinds'), doc.indexOf('\n## ', doc.indexOf('## Event kinds') + 1))
  const listed = [...section.matchAll(/^\| `([a-z_]+\.[a-z_]+)` \|/gm)].map((m) => m[1])
  expect(listed.length).toBeGreaterThan(0)
  expect([...listed].sort()).toEqual([...EVENT_KINDS].sort())
  expect(new Set(listed).size).toBe(listed.length)
})
