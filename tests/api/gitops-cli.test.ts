// `npm run flagship -- …` (docs/as-code.md §4) against a real server: directories of files, exit codes
// 0 / 2 / 1, --json, offline validate. The token comes from the environment and is never printed.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { api, startServer, type TestServer } from '../helpers/server'
import { tempDir } from '../helpers/temp'

const ROOT = join(import.meta.dir, '..', '..')
let srv: TestServer
beforeAll(async () => {
  srv = await startServer()
})
afterAll(() => srv.stop())

function flagship(...args: string[]) {
  const run = Bun.spawnSync([process.execPath, join(ROOT, 'server', 'gitops', 'cli.ts'), ...args], {
    cwd: ROOT,
    env: { ...process.env, FLAGSHIP_URL: srv.url, FLAGSHIP_TOKEN: srv.adminToken },
  })
  const out = run.stdout.toString()
  const err = run.stderr.toString()
  expect(out + err).not.toContain(srv.adminToken)
  return { code: run.exitCode, out, err }
}

describe('flagship CLI', () => {
  test('validate is offline: a directory of files, a key defined in two files, cycles, unknown fields', () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'a.yaml'), 'flagship: 1\nflags:\n  - key: one\n    enabled: true\n')
    writeFileSync(join(dir, 'b.json'), JSON.stringify({ flagship: 1, configs: [{ key: 'c', value: 1 }] }))
    writeFileSync(join(dir, 'notes.txt'), 'ignored')
    const ok = flagship('validate', '-f', dir, '--json')
    expect(ok.code).toBe(0)
    expect(JSON.parse(ok.out)).toEqual({ valid: true, errors: [] })
    writeFileSync(join(dir, 'c.yml'), 'flagship: 1\nflags:\n  - key: one\n    enabled: false\n')
    const dup = flagship('validate', '-f', dir)
    expect(dup.code).toBe(1)
    expect(dup.err).toContain('"one" is also defined in a.yaml')
    const bad = tempDir()
    writeFileSync(
      join(bad, 'x.yaml'),
      'flagship: 1\nflags:\n  - key: a\n    prerequisites: [{ key: b, value: true }]\n' +
        '  - key: b\n    prerequisites: [{ key: a, value: true }]\n  - key: c\n    colour: red\n',
    )
    const res = flagship('validate', '-f', join(bad, 'x.yaml'))
    expect(res.code).toBe(1)
    expect(res.err).toContain('flags[2].colour (line 8): is not a known field')
    writeFileSync(
      join(bad, 'x.yaml'),
      'flagship: 1\nflags:\n  - key: a\n    prerequisites: [{ key: b, value: true }]\n' +
        '  - key: b\n    prerequisites: [{ key: a, value: true }]\n',
    )
    expect(flagship('validate', '-f', bad).err).toContain('cycle')
    // A problem found in the merged files is reported in its own file, at its own index and line.
    writeFileSync(join(bad, 'x.yaml'), 'flagship: 1\nflags:\n  - key: a\n    enabled: true\n')
    writeFileSync(
      join(bad, 'y.yaml'),
      'flagship: 1\nenvironments: [production]\nflags:\n  - key: b\n    enabled: true\n' +
        '  - key: c\n    enabled: true\n    environments: { moon: { enabled: true } }\n',
    )
    const located = flagship('validate', '-f', bad, '--json')
    expect(JSON.parse(located.out).errors).toEqual([
      { file: join(bad, 'y.yaml'), path: 'flags[1].environments.moon', line: 8, message: 'Environment moon: unknown environment "moon"' },
    ])
  })

  test('plan (exit 2 with changes), apply (exit 2), plan again (exit 0); a stale --plan-id fails (exit 1); export -o', async () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'flags.yaml'), 'flagship: 1\nflags:\n  - key: gitops-flag\n    enabled: true\n    value: "on"\n')
    writeFileSync(join(dir, 'configs.yaml'), 'flagship: 1\nconfigs:\n  - key: gitops-config\n    value: { retries: 3 }\n')
    const plan = flagship('plan', '-f', dir)
    expect(plan.code).toBe(2)
    expect(plan.out).toContain('+ flag gitops-flag')
    expect(plan.out).toContain('planned: 2 to create, 0 to update, 0 to delete, 0 unchanged')
    const planJson = JSON.parse(flagship('plan', '-f', dir, '--json').out)
    const applied = flagship('apply', '-f', dir, '--plan-id', planJson.plan_id, '--json')
    expect(applied.code).toBe(2)
    expect(JSON.parse(applied.out).summary).toMatchObject({ create: 2 })
    expect(flagship('plan', '-f', dir).code).toBe(0)
    expect(flagship('apply', '-f', dir).code).toBe(0)

    writeFileSync(join(dir, 'flags.yaml'), 'flagship: 1\nflags:\n  - key: gitops-flag\n    enabled: false\n    value: "on"\n')
    const next = JSON.parse(flagship('plan', '-f', dir, '--json').out)
    expect(next.changes[0].diff).toEqual([{ op: 'replace', path: '/enabled', value: false }])
    await api(srv, 'PUT', '/api/v1/flags/gitops-flag', { token: srv.adminToken, body: { description: 'moved' } })
    const stale = flagship('apply', '-f', dir, '--plan-id', next.plan_id)
    expect(stale.code).toBe(1)
    expect(stale.err).toContain('PLAN_OUTDATED')

    const out = join(tempDir(), 'exported')
    expect(flagship('export', '-o', out).code).toBe(0)
    const text = readFileSync(join(out, 'flagship.yaml'), 'utf8')
    expect(text).toContain('key: gitops-flag')
    expect(text).toBe((await api(srv, 'GET', '/api/v1/export', { token: srv.adminToken })).text)
  })

  test('convert is offline: a flagd file becomes a document that validates; --report and -o write files', () => {
    const dir = tempDir()
    const out = join(dir, 'converted.yaml')
    const report = join(dir, 'report.txt')
    const res = flagship(
      'convert',
      '--from',
      'flagd',
      join(ROOT, 'tests', 'fixtures', 'migration', 'flagd', 'demo.flagd.json'),
      '-o',
      out,
      '--report',
      report,
    )
    expect([0, 2]).toContain(res.code!)
    expect(readFileSync(out, 'utf8')).toContain('flagship: 1')
    expect(res.code === 2).toBe(readFileSync(report, 'utf8').trim().length > 0)
    expect(flagship('validate', '-f', out).code).toBe(0)
    expect(flagship('convert', '--from', 'nothing', out).code).toBe(1)
    expect(flagship('convert', '--from', 'flagd', join(dir, 'missing.json')).code).toBe(1)
  })

  test('errors exit 1: no server settings, an unreachable server, an unknown command', () => {
    const run = Bun.spawnSync([process.execPath, join(ROOT, 'server', 'gitops', 'cli.ts'), 'export'], {
      cwd: ROOT,
      env: { ...process.env, FLAGSHIP_URL: '', FLAGSHIP_TOKEN: '' },
    })
    expect(run.exitCode).toBe(1)
    expect(run.stderr.toString()).toContain('FLAGSHIP_URL and FLAGSHIP_TOKEN')
    expect(flagship('nonsense').code).toBe(1)
    const dir = tempDir()
    mkdirSync(join(dir, 'empty'))
    expect(flagship('plan', '-f', join(dir, 'empty')).code).toBe(1)
  })
})
