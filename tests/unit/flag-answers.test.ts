// The answer memo of the evaluation GET's fast path (server/http/flag-answers.ts): what it remembers (a
// repeated context's answer, per caller and flag), what it never does (a first sighting, a flag whose answer
// can change with the clock alone, a path longer than its bound), and that anything remembered goes stale with
// the snapshot's revision. A remembered answer is the same FlagEvaluation object, and it counts every time.
import { beforeEach, describe, expect, test } from 'bun:test'
import { Snapshots } from '../../server/cache/snapshots'
import type { Caller } from '../../server/http/auth'
import { FlagAnswers } from '../../server/http/flag-answers'
import type { FlagEvaluation } from '../../server/http/evaluation-responses'
import type { DocumentRow } from '../../server/store/documents'
import { drainCounts } from '../../server/usage/counter'

const project = { id: 'p1', slug: 'p1', name: 'P', environments: ['production', 'staging'], createdAt: '', updatedAt: '' }
const row = (key: string, body: Record<string, unknown>, version = 1): DocumentRow<never> => ({
  projectId: 'p1',
  key,
  body: { key, ...body } as never,
  version,
  createdAt: 't0',
  updatedAt: `t${version}`,
})
const rollout = { targeting: { rollout: { percentage: 50, attribute: 'user_id' } } }
const flags = (version = 1) => [
  row('plain', { enabled: true, value: version === 1 ? 'one' : 'two', ...rollout }, version),
  row('windowed', { enabled: true, value: true, active_until: '2999-01-01T00:00:00.000Z' }),
  row('dependent', { enabled: true, value: true, prerequisites: [{ key: 'plain', value: 'one' }] }),
  row('own', {
    enabled: true,
    value: 'flag',
    environments: {
      production: {
        enabled: true,
        value: 'prod',
        targeting: { rules: [{ conditions: [{ property: 'plan', operator: 'equals', value: 'pro' }], value: 'pro' }] },
      },
    },
  }),
  ...Array.from({ length: 20 }, (_, i) => row(`f${i}`, { enabled: true, value: i })),
]

const callerOf = (name: string, environment: string | null = null): Caller =>
  ({
    token: { hash: name, projectId: 'p1', permissions: ['read:flags'], environment },
    actor: { projectId: 'p1', name },
    expiresAtMs: Infinity,
    rateKeys: { evaluation: `${name}:evaluation`, management: `${name}:management` },
  }) as unknown as Caller
const urlOf = (key: string, context: object | null, host = '127.0.0.1:4000') =>
  `http://${host}/api/v1/flags/${key}${context ? `?context=${encodeURIComponent(JSON.stringify(context))}` : ''}`
let snapshots: Snapshots
let answers: FlagAnswers
let context: object
let n = 0
beforeEach(() => {
  snapshots = new Snapshots(undefined)
  snapshots.serveProject(project, { flags: flags(), configs: [], segments: [] })
  answers = new FlagAnswers(snapshots)
  // A context no other test has sent (the context memo is the process's own).
  context = { user_id: `user-${++n}`, plan: 'pro' }
})

/** As the fast path asks: the caller's recent URLs by their text, then the memo by context. */
const ask = (caller: Caller, key: string, ctx: object | null = context, host?: string): FlagEvaluation => {
  const url = urlOf(key, ctx, host)
  return answers.repeated(caller, url) ?? answers.evaluation(caller, url, key)
}
/** Three asks: the first parses the context, the second is its second sighting (remembered from then on). */
const thrice = (caller: Caller, key: string, ctx: object | null = context, host?: string) => [
  ask(caller, key, ctx, host),
  ask(caller, key, ctx, host),
  ask(caller, key, ctx, host),
]
const body = (e: FlagEvaluation) => JSON.parse(e.prepared.body)

describe('the answer memo', () => {
  test("a repeated context's answer is remembered from its second sighting on, per caller and flag", () => {
    const a = callerOf('a')
    const [first, second, third] = thrice(a, 'plain')
    expect(first).not.toBe(second)
    expect(third).toBe(second)
    expect(body(third!)).toEqual(body(first!))
    // another caller, another flag, the same context: answers of their own
    expect(ask(callerOf('b'), 'plain')).not.toBe(third)
    const [, f0] = thrice(a, 'f0')
    expect(f0).not.toBe(third)
    expect(ask(a, 'plain')).toBe(third)
  })

  test('no context at all is a repeat from the first ask on', () => {
    const a = callerOf('a')
    const first = ask(a, 'plain', null)
    expect(ask(a, 'plain', null)).toBe(first)
  })

  test("a change to the project's snapshot makes every remembered answer stale", () => {
    const a = callerOf('a')
    const [, before] = thrice(a, 'plain')
    expect(body(before!).value).toBe('one')
    snapshots.serveProject(project, { flags: flags(2), configs: [], segments: [] })
    const after = ask(a, 'plain')
    expect(after).not.toBe(before)
    expect(body(after).value).toBe('two')
    expect(ask(a, 'plain')).toBe(after)
    // even a change to another document moves the revision
    snapshots.serveProject(project, {
      flags: flags(2).map((r) => (r.key === 'f0' ? { ...r, version: 9, updatedAt: 't9' } : r)),
      configs: [],
      segments: [],
    })
    expect(ask(a, 'plain')).not.toBe(after)
  })

  test('an answer that can change with the clock alone (an activity window, a prerequisite) is never remembered', () => {
    const a = callerOf('a')
    const [, w2, w3] = thrice(a, 'windowed')
    expect(w3).not.toBe(w2)
    expect(body(w3!)).toEqual({ value: true, type: 'boolean', reason: 'default' })
    const [, d2, d3] = thrice(a, 'dependent')
    expect(d3).not.toBe(d2)
  })

  test("an environment key's answers are its environment's (own rules), remembered apart from the flag's", () => {
    const production = callerOf('prod-key', 'production')
    const any = callerOf('any-key')
    const [, , fromKey] = thrice(production, 'own')
    const [, , plain] = thrice(any, 'own')
    expect(body(fromKey!).value).toBe('pro')
    expect(body(plain!).value).toBe('flag')
    expect(ask(production, 'own')).toBe(fromKey)
  })

  test('memory is bounded: 16 flags per context (the oldest goes), no paths over 512 characters', () => {
    const a = callerOf('a')
    const [, firstRemembered] = thrice(a, 'f0')
    for (let i = 1; i <= 16; i++) thrice(a, `f${i}`)
    expect(ask(a, 'f16')).toBe(ask(a, 'f16'))
    expect(ask(a, 'f0')).not.toBe(firstRemembered)
    const host = `h${'x'.repeat(520)}.example:4000`
    const [, l2, l3] = thrice(a, 'plain', context, host)
    expect(l3).not.toBe(l2)
  })

  test('a remembered answer counts every time it serves, across drains', () => {
    const a = callerOf('counter')
    const [, , remembered] = thrice(a, 'f3')
    drainCounts()
    for (let i = 0; i < 3; i++) remembered!.count()
    const total = (drained: ReturnType<typeof drainCounts>) => drained.filter((c) => c.key === 'f3').reduce((s, c) => s + c.count, 0)
    expect(total(drainCounts())).toBe(3)
    remembered!.count()
    expect(total(drainCounts())).toBe(1)
    expect(total(drainCounts())).toBe(0)
  })

  test('an unknown flag is 404 and a bad context 400, in that order, remembered or not', () => {
    const a = callerOf('a')
    const bad = 'http://127.0.0.1:4000/api/v1/flags/nope?context=%7Bnot-json'
    expect(() => answers.evaluation(a, bad, 'nope')).toThrow(expect.objectContaining({ status: 404 }))
    expect(() => answers.evaluation(a, bad.replace('nope', 'plain'), 'plain')).toThrow(expect.objectContaining({ status: 400 }))
  })

  test("a caller's last 4 remembered URLs are found by their text alone, and only while the snapshot stands", () => {
    const a = callerOf('a')
    const url = (key: string) => urlOf(key, context)
    ask(a, 'plain')
    // a first sighting is not remembered, so not recent either
    expect(answers.repeated(a, url('plain'))).toBeUndefined()
    const second = ask(a, 'plain')
    expect(answers.repeated(a, url('plain'))).toBe(second)
    // per caller, and the whole text: another caller, another host, another context are not it
    expect(answers.repeated(callerOf('a'), url('plain'))).toBeUndefined()
    expect(answers.repeated(a, urlOf('plain', context, 'localhost:4000'))).toBeUndefined()
    expect(answers.repeated(a, urlOf('plain', { ...context, plan: 'free' }))).toBeUndefined()
    // a change to the project: no longer, until it is answered (and remembered) again
    snapshots.serveProject(project, { flags: flags(2), configs: [], segments: [] })
    expect(answers.repeated(a, url('plain'))).toBeUndefined()
    expect(ask(a, 'plain')).not.toBe(second)
    const after = ask(a, 'plain')
    expect(answers.repeated(a, url('plain'))).toBe(after)
    // four URLs per caller: a fifth pushes out the one served longest ago, which the memo still finds by context
    for (const key of ['f0', 'f1', 'f2', 'f3']) thrice(a, key)
    expect(answers.repeated(a, url('plain'))).toBeUndefined()
    expect(answers.repeated(a, url('f0'))).toBeDefined()
    expect(answers.evaluation(a, url('plain'), 'plain')).toBe(after)
    // found by context, it is the most recent again
    expect(answers.repeated(a, url('plain'))).toBe(after)
    expect(answers.repeated(a, url('f0'))).toBeUndefined()
  })
})
