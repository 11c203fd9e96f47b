// Offline mode (docs/as-code.md): FLAGS_FILE serves the default project's flags, configs and segments from a
// document, read-only (405 READ_ONLY), reloads it when it changes, keeps the last good version when a new
// one is invalid, and streams a change for each difference.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { api, startServer, type TestServer } from '../helpers/server'
import { openSse } from '../helpers/sse'
import { tempDir } from '../helpers/temp'

const file = join(tempDir(), 'flags.yaml')
const V1 = `flagship: 1
segments:
  - key: staff
    conditions: [{ property: plan, operator: equals, value: staff }]
flags:
  - key: banner
    enabled: true
    value: blue
    targeting: { rules: [{ conditions: [{ operator: in_segment, value: staff }], value: red }] }
  - key: old
    enabled: true
configs:
  - key: limits
    value: 10
`
let srv: TestServer
beforeAll(async () => {
  writeFileSync(file, V1)
  srv = await startServer({ env: { FLAGS_FILE: file, FLAGS_FILE_POLL_MS: '50' } })
})
afterAll(() => srv.stop())

const evaluate = async (key: string, context: Record<string, unknown> = {}) =>
  (await api(srv, 'GET', `/api/v1/flags/${key}?context=${encodeURIComponent(JSON.stringify(context))}`, { token: srv.adminToken })).body
const waitFor = async (check: () => Promise<boolean>) => {
  for (let i = 0; i < 200; i++) {
    if (await check()) return
    await Bun.sleep(50)
  }
  throw new Error('condition not met in 10 s')
}

describe('FLAGS_FILE', () => {
  test('serves evaluation, definitions and configs from the file', async () => {
    expect(await evaluate('banner', { plan: 'staff' })).toMatchObject({ value: 'red', reason: 'targeting' })
    expect(await evaluate('banner')).toMatchObject({ value: 'blue' })
    expect((await api(srv, 'GET', '/api/v1/configs/limits', { token: srv.adminToken })).body).toEqual({ value: 10 })
    const defs = (await api(srv, 'GET', '/api/v1/definitions', { token: srv.adminToken })).body
    expect(defs.flags.map((f: any) => f.key).sort()).toEqual(['banner', 'old'])
  })

  test('writes to flags, configs and segments answer 405 READ_ONLY; reads, evaluation and plans still work', async () => {
    for (const [method, path, body] of [
      ['POST', '/api/v1/flags', { key: 'x' }],
      ['PUT', '/api/v1/flags/banner', { enabled: false }],
      ['DELETE', '/api/v1/flags/old', undefined],
      ['POST', '/api/v1/configs', { key: 'c', value: 1 }],
      ['POST', '/api/v1/segments', { key: 's', conditions: [] }],
      ['POST', '/api/v1/promote', { from: 'staging', to: 'production' }],
    ] as const) {
      const res = await api(srv, method, path, { token: srv.adminToken, ...(body !== undefined && { body }) })
      expect({ method, path, status: res.status, code: res.body?.code }).toEqual({ method, path, status: 405, code: 'READ_ONLY' })
    }
    const apply = await api(srv, 'POST', '/api/v1/import?mode=apply', {
      token: srv.adminToken,
      rawBody: 'flagship: 1\n',
      headers: { 'content-type': 'application/yaml' },
    })
    expect(apply.status).toBe(405)
    expect(
      (
        await api(srv, 'POST', '/api/v1/import?mode=plan', {
          token: srv.adminToken,
          rawBody: 'flagship: 1\n',
          headers: { 'content-type': 'application/yaml' },
        })
      ).status,
    ).toBe(200)
    const evaluated = await api(srv, 'POST', '/api/v1/evaluate', { token: srv.adminToken, body: { context: {}, flags: ['banner'] } })
    expect(evaluated.text).toContain('"banner":"blue"')
    // Tokens stay in the database as usual.
    expect(
      (
        await api(srv, 'POST', '/api/v1/tokens', {
          token: srv.adminToken,
          body: { name: 'reader', project_id: 'default', permissions: ['read:flags'] },
        })
      ).status,
    ).toBe(201)
  })

  test('a changed file is reloaded and each difference streamed; an invalid one keeps the last good state', async () => {
    const stream = await openSse(`${srv.url}/api/v1/stream`, { authorization: `Bearer ${srv.adminToken}` })
    writeFileSync(
      file,
      V1.replace('value: blue', 'value: green').replace('  - key: old\n    enabled: true\n', '  - key: fresh\n    enabled: true\n'),
    )
    const keys: string[] = []
    for (let i = 0; i < 3; i++) {
      const e = await stream.next((x) => x.event === 'change', 10_000)
      keys.push(`${e.data.action} ${e.data.key}`)
    }
    expect(keys.sort()).toEqual(['create fresh', 'delete old', 'update banner'])
    expect(await evaluate('banner')).toMatchObject({ value: 'green' })
    expect((await api(srv, 'GET', '/api/v1/flags/old', { token: srv.adminToken })).status).toBe(404)

    writeFileSync(file, 'flagship: 1\nflags:\n  - key: broken\n    colour: red\n')
    await waitFor(async () => srv.output().includes('still serving the last good version'))
    expect(srv.output()).toContain('is not a known field')
    expect(await evaluate('banner')).toMatchObject({ value: 'green' })
    expect((await api(srv, 'GET', '/api/v1/flags/broken', { token: srv.adminToken })).status).toBe(404)

    writeFileSync(file, V1)
    const back = await stream.next((x) => x.event === 'change' && x.data.key === 'banner', 10_000)
    expect(back.data.action).toBe('update')
    await waitFor(async () => (await evaluate('banner')).value === 'blue')
    stream.close()
  })
})
