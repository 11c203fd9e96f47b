// Flags as code under protection (docs/as-code.md §4, docs/change-requests.md §1) with the real `flagship`
// CLI against a real server, on the store the suite runs on: `apply --propose` and `promote --propose` open
// a change request from the plan (exit 0, its id and address printed); `promote --plan` is a dry run (exit
// 0 nothing to do, 2 changes pending); `promote` without keys needs `--all` (exit 2 naming it); a direct
// apply or promotion into a protected environment fails (exit 1); `--help` exits 0.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { api, type ApiResponse } from '../helpers/server'
import { sapi } from '../helpers/teams'
import { startWithPeople, type People } from '../helpers/people'
import { flagshipEnv, runFlagship } from '../helpers/cli'
import { tempDir } from '../helpers/temp'

const ADMIN = 'admin@example.com'
const BOB = 'bob@example.com'

describe('flags as code under protection', () => {
  let p: People
  let ci: string
  const asToken = (method: string, path: string, body?: unknown, t = p.srv.adminToken) => api(p.srv, method, path, { token: t, body })
  const flagship = (...args: string[]) => {
    const run = runFlagship(flagshipEnv(p.srv, ci), ...args)
    expect(run.out + run.err).not.toContain(ci)
    return run
  }
  const production = async (key: string) => (await asToken('GET', `/api/v1/flags/${key}/definition`)).body.flag.environments?.production
  const opened = (out: string) => {
    const m = /change request (\S+) opened: (\S+)/.exec(out)
    expect(m).not.toBeNull()
    expect(m![2]).toBe(`${p.srv.url}/changes/${m![1]}`)
    return m![1]!
  }

  beforeAll(async () => {
    p = await startWithPeople([
      { email: ADMIN, role: 'admin' },
      { email: BOB, role: 'editor' },
    ])
    const ok = (res: ApiResponse) => expect(res.status).toBeLessThan(300)
    ok(await asToken('POST', '/api/v1/flags', { key: 'checkout', enabled: false, value: false }))
    ok(await asToken('PUT', '/api/v1/flags/checkout/environments/staging', { enabled: true, value: true }))
    ok(await asToken('POST', '/api/v1/flags', { key: 'same', enabled: false }))
    ok(await asToken('POST', '/api/v1/configs', { key: 'limits', value: { max: 1 } }))
    ok(await asToken('PUT', '/api/v1/configs/limits/environments/staging', { value: { max: 7 } }))
    ci = (
      await asToken('POST', '/api/v1/tokens', {
        name: 'ci',
        project_id: 'default',
        permissions: ['read:flags', 'read:configs', 'write:flags', 'write:configs'],
      })
    ).body.token
    ok(
      await sapi(p.srv, 'PUT', '/api/v1/project/environments/production/policy', {
        cookie: p.cookies[ADMIN],
        project: 'default',
        body: { protected: true, required_approvals: 1, approver_role: 'editor' },
      }),
    )
  }, 120_000)
  afterAll(() => p.stop(), 60_000)

  test('--help exits 0 with the usage on stdout; no command exits 1', () => {
    const help = flagship('--help')
    expect(help.code).toBe(0)
    expect(help.out).toContain('usage: flagship')
    expect(help.out).toContain('--propose')
    expect(flagship().code).toBe(1)
  })

  test('promote without keys needs --all (exit 2 naming it); --plan is a dry run (2 pending, 0 nothing to do)', async () => {
    const bare = flagship('promote', '--from', 'staging', '--to', 'production')
    expect(bare.code).toBe(2)
    expect(bare.err).toContain('--all')
    const plan = flagship('promote', '--from', 'staging', '--to', 'production', '--plan', 'checkout')
    expect(plan.code).toBe(2)
    expect(plan.out).toContain('~ flag checkout')
    expect(plan.out).toContain('planned: 0 to create, 1 to update')
    expect(flagship('promote', '--from', 'staging', '--to', 'production', '--plan', 'same').code).toBe(0)
    expect(flagship('promote', '--from', 'staging', '--to', 'production', '--plan', '--all').code).toBe(2)
    expect(await production('checkout')).toBeUndefined()
  })

  test('a direct promotion or apply into protected production fails (exit 1, CHANGE_REQUEST_REQUIRED)', async () => {
    const res = flagship('promote', '--from', 'staging', '--to', 'production', 'checkout')
    expect(res.code).toBe(1)
    expect(res.err).toContain('CHANGE_REQUEST_REQUIRED')
    const dir = tempDir()
    writeFileSync(join(dir, 'flags.yaml'), 'flagship: 1\nflags:\n  - key: fresh\n    enabled: true\n    value: true\n')
    const apply = flagship('apply', '-f', dir)
    expect(apply.code).toBe(1)
    expect(apply.err).toContain('CHANGE_REQUEST_REQUIRED')
    expect(await production('checkout')).toBeUndefined()
  })

  test('promote --all --propose opens a change request affecting production only; approved by a person, it applies', async () => {
    const res = flagship('promote', '--from', 'staging', '--to', 'production', '--all', '--propose', '--title', 'Release 42')
    expect(res.code).toBe(0)
    const id = opened(res.out)
    const cr = (await asToken('GET', `/api/v1/change-requests/${id}`)).body.change_request
    expect(cr).toMatchObject({ title: 'Release 42', state: 'open', environments: ['production'] })
    expect(
      cr.items.map((i: { resource_type: string; key: string; action: string; environment: string }) => [
        i.resource_type,
        i.key,
        i.action,
        i.environment,
      ]),
    ).toEqual([
      ['flag', 'checkout', 'set_override', 'production'],
      ['config', 'limits', 'set_override', 'production'],
    ])
    expect(await production('checkout')).toBeUndefined()
    const review = await sapi(p.srv, 'POST', `/api/v1/change-requests/${id}/reviews`, {
      cookie: p.cookies[BOB],
      project: 'default',
      body: { decision: 'approve', revision: 1 },
    })
    expect(review.body.change_request.state).toBe('approved')
    expect((await asToken('POST', `/api/v1/change-requests/${id}/apply`, { revision: 1 }, ci)).status).toBe(200)
    expect(await production('checkout')).toEqual({ enabled: true, value: true })
    expect((await asToken('GET', '/api/v1/configs/limits/definition')).body.config.environments.production).toEqual({ value: { max: 7 } })
    // nothing left to promote: no request opened, exit 0
    const again = flagship('promote', '--from', 'staging', '--to', 'production', '--all', '--propose')
    expect(again.code).toBe(0)
    expect(again.out).toContain('no change request opened')
  })

  test('apply --propose opens a change request from the plan (--json: its id and address)', async () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'flags.yaml'), 'flagship: 1\nflags:\n  - key: fresh\n    enabled: true\n    value: true\n')
    const res = flagship('apply', '-f', dir, '--propose', '--json')
    expect(res.code).toBe(0)
    const body = JSON.parse(res.out)
    expect(body.address).toBe(`${p.srv.url}/changes/${body.change_request.id}`)
    expect(body.change_request.items).toEqual([expect.objectContaining({ resource_type: 'flag', key: 'fresh', action: 'create' })])
    expect((await asToken('GET', '/api/v1/flags/fresh/definition')).status).toBe(404)
  })

  test('break glass reaches a promotion: an admin session with a reason applies it (audited); an editor 403, a token 409', async () => {
    expect((await asToken('PUT', '/api/v1/flags/same/environments/staging', { enabled: true, value: true })).status).toBe(200)
    const body = { from: 'staging', to: 'production', flags: ['same'] }
    const reason = { 'Flagship-Bypass-Reason': 'release train 12 is blocked' }
    expect(
      (await sapi(p.srv, 'POST', '/api/v1/promote', { cookie: p.cookies[BOB], project: 'default', body, headers: reason })).status,
    ).toBe(403)
    const token = await api(p.srv, 'POST', '/api/v1/promote', { token: ci, body, headers: reason })
    expect({ status: token.status, code: token.body.code }).toEqual({ status: 409, code: 'CHANGE_REQUEST_REQUIRED' })
    expect(await production('same')).toBeUndefined()
    const res = await sapi(p.srv, 'POST', '/api/v1/promote', { cookie: p.cookies[ADMIN], project: 'default', body, headers: reason })
    expect(res.status).toBe(200)
    expect(await production('same')).toEqual({ enabled: true, value: true })
    const entry = (await asToken('GET', '/api/v1/audit?resource_type=flag&resource_key=same')).body.entries[0]
    expect(entry.details).toMatchObject({ bypass_reason: 'release train 12 is blocked' })
  })

  test('who may propose is unchanged: a token without write rights cannot (exit 1, 403)', async () => {
    const reader = (
      await asToken('POST', '/api/v1/tokens', { name: 'reader', project_id: 'default', permissions: ['read:flags', 'read:configs'] })
    ).body.token
    const run = runFlagship(flagshipEnv(p.srv, reader), 'promote', '--from', 'staging', '--to', 'production', 'checkout', '--propose')
    expect(run.code).toBe(1)
    expect(run.err).toContain('403')
    const staging = (
      await asToken('POST', '/api/v1/tokens', {
        name: 'staging',
        project_id: 'default',
        permissions: ['read:flags', 'write:flags'],
        environments: ['staging'],
      })
    ).body.token
    const scoped = await api(p.srv, 'POST', '/api/v1/promote', {
      token: staging,
      body: { from: 'staging', to: 'production', flags: ['same'], propose: true },
    })
    expect({ status: scoped.status, code: scoped.body.code }).toEqual({ status: 403, code: 'ENVIRONMENT_FORBIDDEN' })
  })
})
