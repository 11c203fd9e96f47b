// `npm run build:binary`: Flagship as one self-contained executable (bun build --compile) with the console,
// the /docs page, the migrations and the SDK bundles inside, in an archive embedded in the binary that
// server/assets.ts serves from. Run it anywhere: it keeps its SQLite database in data/ next to itself
// unless DATABASE_URL says otherwise, and needs nothing else installed (docs/operations.md).
//   bun scripts/build-binary.ts [--outfile dist/flagship] [--target bun-linux-x64]
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { parseArgs } from 'node:util'
import { ensureConsoleBuilt } from '../server/http/console'
import { sourceDir } from '../server/assets'
import { VERSION } from '../server/version'
import { packSdk } from '../sdk/build'

const ROOT = join(import.meta.dir, '..')

/** Every file the binary carries, keyed as server/assets.ts looks them up. */
export async function collectAssets(): Promise<Record<string, Uint8Array>> {
  if (!(await ensureConsoleBuilt((msg) => console.log(msg)))) throw new Error('the console (web/) did not build')
  const files: Record<string, Uint8Array> = {}
  const addDir = (kind: string, dir: string, pattern = '**/*') => {
    for (const file of new Bun.Glob(pattern).scanSync(dir)) files[`${kind}/${file}`] = new Uint8Array(readFileSync(join(dir, file)))
  }
  addDir('console', sourceDir('console'))
  addDir('migrations', sourceDir('migrations'), '{sqlite,pg}/**/*')
  for (const file of ['swagger-ui.css', 'swagger-ui-bundle.js'])
    files[`swagger/${file}`] = new Uint8Array(readFileSync(join(sourceDir('swagger'), file)))
  for (const [file, bytes] of await packSdk(VERSION)) files[`sdk/${file}`] = bytes
  return files
}

export async function buildBinary(outfile: string, target?: string): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'flagship-binary-'))
  try {
    const assets = await collectAssets()
    await Bun.write(join(work, 'assets.tar.gz'), await new Bun.Archive(assets, { compress: 'gzip' }).bytes())
    const server = (p: string) => JSON.stringify(join(ROOT, 'server', p))
    // The entry: hand the embedded files to assets.ts, then run the service, or the CLI when the first
    // argument is one of its commands (`flagship backup --to …`).
    writeFileSync(
      join(work, 'entry.ts'),
      `
import archive from './assets.tar.gz' with { type: 'file' }
import { dirname, join } from 'node:path'
import { useEmbeddedAssets } from ${server('assets.ts')}
const files = new Map<string, Uint8Array>()
for (const [path, file] of await new Bun.Archive(await Bun.file(archive).bytes()).files()) files.set(path, await file.bytes())
useEmbeddedAssets(files)
// The database lives next to the binary unless DATABASE_URL says otherwise.
process.env.DATABASE_URL ||= 'sqlite:' + join(dirname(process.execPath), 'data', 'flags.db')
const command = process.argv[2]
if (command === '--version' || command === 'version') console.log(${JSON.stringify(VERSION)})
else if (command && command !== 'serve') await import(${server('cli.ts')})
else await (await import(${server('index.ts')})).main()
`,
    )
    const args = [process.execPath, 'build', '--compile', '--minify', join(work, 'entry.ts'), '--outfile', outfile]
    if (target) args.push(`--target=${target}`)
    const build = Bun.spawnSync(args, { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' })
    if (build.exitCode !== 0) throw new Error(`bun build --compile failed:\n${build.stdout}${build.stderr}`)
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: { outfile: { type: 'string', default: join(ROOT, 'dist', 'flagship') }, target: { type: 'string' } },
  })
  const started = performance.now()
  await buildBinary(values.outfile!, values.target)
  const size = Bun.file(values.outfile!).size
  console.log(
    `built ${relative(process.cwd(), values.outfile!) || values.outfile} (Flagship ${VERSION}, ${(size / 1024 / 1024).toFixed(1)} MB) ` +
      `in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  )
}
