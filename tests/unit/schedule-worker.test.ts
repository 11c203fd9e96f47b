// The scheduled-change worker's timing, against a stand-in for the schedule service: it wakes at the next
// `at` (not at the next poll), a wake() re-arms it for a schedule made meanwhile, it applies every due one
// before sleeping, an unreachable store is logged once per outage, and stop() waits for an application.
import { expect, test } from 'bun:test'
import { startScheduleWorker } from '../../server/schedules/worker'
import type { ApplyOutcome } from '../../server/services/schedules'
import type { ScheduleRow } from '../../server/store/schedules'

/** Pending `at` times (ms); applyDue takes the earliest due one. */
function fakeService(pending: number[], opts: { applyMs?: number; failLooks?: number } = {}) {
  const applied: { at: number; when: number }[] = []
  const prunes: number[] = []
  let failLooks = opts.failLooks ?? 0
  return {
    applied,
    pending,
    prunes,
    service: {
      async pruneFinished() {
        prunes.push(Date.now())
        return 0
      },
      async nextDueAt() {
        if (failLooks > 0) {
          failLooks--
          throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })
        }
        return pending.length ? new Date(Math.min(...pending)).toISOString() : null
      },
      async applyDue(): Promise<ApplyOutcome> {
        const now = Date.now()
        const due = pending.filter((at) => at <= now).sort((x, y) => x - y)[0]
        if (due === undefined) return { outcome: 'none' }
        if (opts.applyMs) await Bun.sleep(opts.applyMs)
        pending.splice(pending.indexOf(due), 1)
        applied.push({ at: due, when: Date.now() })
        return { outcome: 'applied', schedule: { id: String(due), flagKey: 'f', resultVersion: 2 } as ScheduleRow }
      },
    },
  }
}

const logs: { msg: string; level?: string }[] = []
const log = (msg: string, _fields?: unknown, level?: 'info' | 'warn' | 'error') => void logs.push({ msg, level })

test('wakes at the next `at`, not at the next poll, and applies every due one before sleeping', async () => {
  const t0 = Date.now()
  const fake = fakeService([t0 + 150, t0 + 150, t0 + 160, t0 + 60_000])
  const worker = startScheduleWorker({ schedules: fake.service, log, pollIntervalMs: 10_000 })
  try {
    await Bun.sleep(500)
    expect(fake.applied.map((a) => a.at - t0)).toEqual([150, 150, 160])
    for (const a of fake.applied) expect(a.when - a.at).toBeGreaterThanOrEqual(0)
    // Well before the 10 s poll; the margin leaves room for a busy machine's timers.
    for (const a of fake.applied) expect(a.when - a.at).toBeLessThan(250)
    expect(fake.pending).toEqual([t0 + 60_000])
  } finally {
    await worker.stop()
  }
})

test('wake() re-arms it for a schedule made after it went to sleep', async () => {
  const fake = fakeService([])
  const worker = startScheduleWorker({ schedules: fake.service, log, pollIntervalMs: 10_000 })
  try {
    await Bun.sleep(50)
    const at = Date.now() + 100
    fake.pending.push(at)
    worker.wake()
    await Bun.sleep(450)
    expect(fake.applied.map((a) => a.at)).toEqual([at])
    expect(fake.applied[0]!.when - at).toBeLessThan(250)
  } finally {
    await worker.stop()
  }
})

test('without a wake, the poll still finds a schedule another instance made', async () => {
  const fake = fakeService([])
  const worker = startScheduleWorker({ schedules: fake.service, log, pollIntervalMs: 100 })
  try {
    await Bun.sleep(30)
    fake.pending.push(Date.now())
    await Bun.sleep(250)
    expect(fake.applied).toHaveLength(1)
  } finally {
    await worker.stop()
  }
})

test('an unreachable store is logged once per outage, then the due schedule is applied', async () => {
  logs.length = 0
  const fake = fakeService([Date.now()], { failLooks: 4 })
  const worker = startScheduleWorker({ schedules: fake.service, log, pollIntervalMs: 20 })
  try {
    await Bun.sleep(300)
    expect(fake.applied).toHaveLength(1)
    expect(logs.filter((l) => l.level === 'warn').map((l) => l.msg)).toEqual([
      'scheduled changes: looking for due schedules failed; retrying',
    ])
    expect(logs.map((l) => l.msg)).toContain('scheduled changes: the store answers again')
  } finally {
    await worker.stop()
  }
})

test('stop() resolves only once the schedule being applied is done', async () => {
  const fake = fakeService([Date.now()], { applyMs: 150 })
  const worker = startScheduleWorker({ schedules: fake.service, log })
  await Bun.sleep(30)
  await worker.stop()
  expect(fake.applied).toHaveLength(1)
})

test('finished schedules past their retention are pruned when the worker starts, then at most once an hour', async () => {
  const fake = fakeService([Date.now() + 50, Date.now() + 100])
  const worker = startScheduleWorker({ schedules: fake.service, log, pollIntervalMs: 20 })
  await Bun.sleep(300)
  await worker.stop()
  expect(fake.applied).toHaveLength(2)
  expect(fake.prunes).toHaveLength(1)
})
