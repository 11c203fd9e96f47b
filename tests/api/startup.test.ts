// Starting the service as an operator does (docs/operations.md): the start log names the console's address
// and, the first time, how to sign in; /health reports the version; each failure an operator meets (busy
// port, unreachable or missing PostgreSQL, a data folder that cannot be written) stops the service with one
// line naming the problem and the fix, not a stack trace.
import { afterAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import pkg from '../../package.json'
import { runCli } from '../helpers/cli'
import { ADMIN_URL } from '../helpers/postgres'
import { requireServices } from '../helpers/requirements'
import { api, startServer } from '../helpers/server'
import { tempDir } from '../helpers/temp'

const ROOT = join(import.meta.dir, '..', '..')

/** Runs the service until it exits by itself (it must, within 30 s), with the given environment. */
async function startFailing(env: Record<string, string>) {
  const proc = Bun.spawn([process.execPath, join(ROOT, 'server', 'index.ts')], {
    cwd: ROOT,
    env: { ...process.env, HOST: '127.0.0.1', APP_ENV: 'test', ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const timer = setTimeout(() => proc.kill('SIGKILL'), 30_000)
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()])
  await proc.exited
  clearTimeout(timer)
  return { code: proc.exitCode, out, err }
}

/** One line on stderr: "Flagship cannot start: …", matching `pattern`. */
function expectOneLine(run: { code: number | null; err: string }, pattern: RegExp) {
  expect(run.code).toBe(1)
  const lines = run.err.trim().split('\n')
  expect(lines).toHaveLength(1)
  expect(lines[0]).toStartWith('Flagship cannot start: ')
  expect(lines[0]).toMatch(pattern)
}

describe('start log and version', () => {
  test('the first start names the console and how to sign in; a restart only the console; /health has the version', async () => {
    const srv = await startServer({ env: { BOOTSTRAP_TOKEN: '' } })
    let again: Awaited<ReturnType<typeof startServer>> | undefined
    try {
      expect(srv.output()).toContain(`Flagship ${pkg.version} is running. Console: http://127.0.0.1:${srv.port}/`)
      expect(srv.output()).toContain('First start: open the console and paste the admin token printed above to sign in.')
      expect(srv.output()).toMatch(/==== ADMIN TOKEN for project "default"/)
      const health = await api(srv, 'GET', '/health')
      expect(health.body).toMatchObject({ status: 'ok', version: pkg.version })
      // Stopped without dropping its database (either store), then started again on it.
      await srv.kill()
      again = await startServer({ databaseUrl: srv.databaseUrl, env: { PUBLIC_URL: 'https://flags.example.com' } })
      expect(again.output()).toContain(
        `Flagship ${pkg.version} is running. Console: https://flags.example.com/  API docs: https://flags.example.com/docs`,
      )
      expect(again.output()).not.toContain('First start')
    } finally {
      await again?.stop()
      await srv.stop()
    }
  })
})

describe('friendly failures', () => {
  const busy = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('taken') })
  afterAll(() => busy.stop(true))

  test('a busy port', async () => {
    const run = await startFailing({ PORT: String(busy.port), DATABASE_URL: `sqlite:${join(tempDir(), 'flags.db')}` })
    expectOneLine(
      run,
      new RegExp(`port ${busy.port} on 127\\.0\\.0\\.1 is already in use: stop the process using it, or start on another port \\(PORT=`),
    )
  })

  test('a data folder that cannot be written', async () => {
    // /proc refuses new folders even to root, so this holds whoever runs the tests.
    const run = await startFailing({ PORT: '0', DATABASE_URL: 'sqlite:/proc/flagship-data/flags.db' })
    expectOneLine(
      run,
      new RegExp(
        String.raw`cannot write the SQLite database \/proc\/flagship-data\/flags\.db in \/proc\/flagship-data \(\w+\): ` +
          'make that folder writable for this user, or set DATABASE_URL=sqlite:',
      ),
    )
  })

  test('an unreachable PostgreSQL', async () => {
    // Port 1 on the loopback: nothing listens there, so the connection is refused at once.
    const run = await startFailing({ PORT: '0', DATABASE_URL: 'postgres://postgres@127.0.0.1:1/flags' })
    expectOneLine(
      run,
      /cannot reach PostgreSQL at 127\.0\.0\.1:1 \(ECONNREFUSED\): start PostgreSQL there, or fix the host and port in DATABASE_URL/,
    )
  })

  test('a PostgreSQL database that does not exist (the password never shows)', async () => {
    if (!(await requireServices({ postgres: true }))) return
    const url = new URL(ADMIN_URL)
    url.pathname = `/flagship_missing_${Date.now().toString(36)}`
    url.password = 'secret-password'
    const run = await startFailing({ PORT: '0', DATABASE_URL: url.toString() })
    const name = url.pathname.slice(1)
    expectOneLine(
      run,
      new RegExp(
        `PostgreSQL database "${name}" does not exist on ${url.hostname}:${url.port || 5432}: ` +
          `create it \\(createdb -h ${url.hostname} -p ${url.port || 5432} ${name}\\) or point DATABASE_URL at an existing database`,
      ),
    )
    expect(run.err + run.out).not.toContain('secret-password')
  })

  test('a PostgreSQL role that does not exist', async () => {
    if (!(await requireServices({ postgres: true }))) return
    const url = new URL(ADMIN_URL)
    url.username = 'flagship_no_such_role'
    const run = await startFailing({ PORT: '0', DATABASE_URL: url.toString() })
    expectOneLine(
      run,
      new RegExp(
        `PostgreSQL on ${url.hostname}:${url.port || 5432} refused user "flagship_no_such_role" \\(.+\\): ` +
          `fix the user or password in DATABASE_URL, or create the role`,
      ),
    )
  })

  test('the command line says the same in one line', () => {
    const run = runCli({ databaseUrl: 'postgres://postgres@127.0.0.1:1/flags' }, 'projects', 'list')
    expect(run.code).toBe(1)
    expect(run.err.trim()).toBe(
      'error: cannot reach PostgreSQL at 127.0.0.1:1 (ECONNREFUSED): start PostgreSQL there, or fix the host and port in DATABASE_URL',
    )
  })
})
