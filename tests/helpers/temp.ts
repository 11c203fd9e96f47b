// Temporary directories for tests: made under the system temp folder and removed after the last suite of
// the run (preload.ts registers removeTempDirs as a global afterAll), so a server restarted on the same
// database file within a suite still finds it.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const made: string[] = []
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
}

/** A new empty directory, removed at process exit. */
export function tempDir(prefix = 'flagship-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  made.push(dir)
  return dir
}

/** `sqlite:<path>` of a new database file in its own temporary directory. */
export const tempSqliteUrl = (prefix?: string): string => `sqlite:${join(tempDir(prefix), 'flags.db')}`
