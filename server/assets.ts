// Files the service serves or reads that are not its code: the console's build, Swagger UI, the database
// migrations and the SDK package. Run from source they are read from the repository's folders (the SDK is
// built on first request, sdk-package.ts); run as the single binary (scripts/build-binary.ts) they come from
// the archive embedded in it, which binary.ts hands over before the service starts.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'

export type AssetKind = 'console' | 'swagger' | 'migrations'

const ROOT = join(import.meta.dir, '..')
let embedded: Map<string, Uint8Array> | undefined

/** The binary's files, keyed `<kind>/<path>` (console/index.html, migrations/sqlite/0000_init.sql, sdk/…). */
export function useEmbeddedAssets(files: Map<string, Uint8Array>): void {
  embedded = files
}
export const isEmbedded = (): boolean => embedded !== undefined
export const embeddedFiles = (): Map<string, Uint8Array> | undefined => embedded

/** Where each kind lives in a source checkout (resolved when first needed: the binary has no node_modules). */
export function sourceDir(kind: AssetKind): string {
  if (kind === 'console') return join(ROOT, 'web', 'dist')
  if (kind === 'migrations') return join(ROOT, 'drizzle')
  return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))
}

/** One file, with its media type from its name; undefined when there is none. */
export function assetFile(kind: AssetKind, path: string): Blob | undefined {
  if (path.split('/').some((part) => part === '..' || part === '')) return undefined
  const type = Bun.file(path).type
  if (embedded) {
    const bytes = embedded.get(`${kind}/${path}`)
    return bytes && new Blob([bytes as Uint8Array<ArrayBuffer>], { type })
  }
  const file = join(sourceDir(kind), path)
  return existsSync(file) ? Bun.file(file) : undefined
}

/** A folder holding the migrations of one dialect, as Drizzle's migrator reads them; done() removes it when
 *  it was written out of the binary for the occasion. */
export function migrationsFolder(dialect: 'sqlite' | 'pg'): { folder: string; done(): void } {
  if (!embedded) return { folder: join(sourceDir('migrations'), dialect), done() {} }
  const folder = mkdtempSync(join(tmpdir(), 'flagship-migrations-'))
  const prefix = `migrations/${dialect}/`
  for (const [key, bytes] of embedded) {
    if (!key.startsWith(prefix)) continue
    const target = join(folder, key.slice(prefix.length))
    mkdirSync(dirname(target), { recursive: true })
    writeFileSync(target, bytes)
  }
  return { folder, done: () => rmSync(folder, { recursive: true, force: true }) }
}
