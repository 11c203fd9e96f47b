// Runs the operator CLI (`npm run cli -- …`) against a test server's database.
import { join } from 'node:path'
import type { TestServer } from './server'

const ROOT = join(import.meta.dir, '..', '..')

export function runCli(srv: Pick<TestServer, 'databaseUrl'>, ...args: string[]) {
  const run = Bun.spawnSync([process.execPath, join(ROOT, 'server', 'cli.ts'), ...args], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: srv.databaseUrl, WEBHOOK_ALLOW_PRIVATE_TARGETS: '1' },
  })
  return { code: run.exitCode, out: run.stdout.toString(), err: run.stderr.toString() }
}

/** The plaintext of a token the CLI printed. */
export const printedToken = (out: string): string => /shown once, store it now\): (\S+)/.exec(out)![1]!

/** Runs the `flagship` command line (server/gitops/cli.ts, `npm run flagship -- …`); `env` adds FLAGSHIP_URL
 *  and FLAGSHIP_TOKEN for the commands that talk to a server. */
export const flagshipEnv = (srv: Pick<TestServer, 'url'>, token: string): Record<string, string> => ({
  FLAGSHIP_URL: srv.url,
  FLAGSHIP_TOKEN: token,
})

export function runFlagship(env: Record<string, string>, ...args: string[]) {
  const run = Bun.spawnSync([process.execPath, join(ROOT, 'server', 'gitops', 'cli.ts'), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
  })
  return { code: run.exitCode, out: run.stdout.toString(), err: run.stderr.toString() }
}
