// The notices of one large commit, together: the change bus hands them to a listener that takes them at
// once (others still get each one, in order), and the fan-out packs them into messages that each stay within
// NOTIFY's 8000-byte payload and read back as the same notices, in order.
import { expect, test } from 'bun:test'
import { ChangeBus, type ChangeNotice } from '../../server/notices/changes'
import { batchMessages, readMessage, singleMessage } from '../../server/cluster/notice-wire'

const notice = (projectId: string, i: number, key = `flag-${i}`): ChangeNotice => ({
  projectId,
  resourceType: 'flag',
  resourceKey: key,
  change: {
    seq: i + 1,
    resource_type: 'flag',
    key,
    action: i % 3 ? 'update' : 'create',
    version: i % 5 ? i : null,
    environment: i % 2 ? 'production' : '',
    at: new Date(Date.UTC(2026, 0, 1, 0, 0, i % 60)).toISOString(),
  },
})

test('publishAll: a batch listener gets the notices at once; the others each one, in order; one notice goes as publish', async () => {
  const bus = new ChangeBus()
  const seen: string[] = []
  bus.subscribe((n) => void seen.push(`one ${n.resourceKey}`))
  bus.subscribe(
    (n) => void seen.push(`one* ${n.resourceKey}`),
    (ns) => void seen.push(`all ${ns.map((n) => n.resourceKey).join(',')}`),
  )
  await bus.publishAll([notice('p', 0), notice('p', 1), notice('p', 2)])
  expect(seen).toEqual(['one flag-0', 'one flag-1', 'one flag-2', 'all flag-0,flag-1,flag-2'])
  seen.length = 0
  await bus.publishAll([notice('p', 7)])
  await bus.publishAll([])
  expect(seen).toEqual(['one flag-7', 'one* flag-7'])
})

test('batch messages: each under the NOTIFY limit, one project each, reading back as the notices in order', () => {
  const notices = [
    ...Array.from({ length: 3000 }, (_, i) => notice('project-a', i, i % 7 ? `flag-${i}` : `ünïcødé-🚩-${i}-${'x'.repeat(i % 90)}`)),
    { projectId: 'project-b', resourceType: 'token' as const, resourceKey: 'ff_b_1234' },
    // A stream entry that names another resource than its notice travels whole.
    { ...notice('project-b', 1), resourceType: 'segment' as const },
    notice('project-a', 3001),
  ]
  const messages = batchMessages('instance-1', notices, 7900)
  expect(messages.length).toBeGreaterThan(10)
  expect(messages.length).toBeLessThan(100)
  for (const m of messages) expect(Buffer.byteLength(m)).toBeLessThan(7900)
  const read = messages.map((m) => readMessage(m)!)
  expect(read.every((r) => r.origin === 'instance-1' && new Set(r.notices.map((n) => n.projectId)).size === 1)).toBe(true)
  expect(read.flatMap((r) => r.notices)).toEqual(notices)
})

test('a single notice is one message, read back as it was; anything else is not ours', () => {
  const one = notice('p', 4)
  expect(readMessage(singleMessage('i', one))).toEqual({ origin: 'i', notices: [one] })
  const bare = { projectId: 'p', resourceType: 'webhook' as const, resourceKey: 'w1' }
  expect(readMessage(singleMessage('i', bare))).toEqual({ origin: 'i', notices: [bare] })
  for (const raw of ['not json', '42', 'null', '{"projectId":"p"}', '{"origin":"i","batch":7}']) expect(readMessage(raw)).toBeUndefined()
})
