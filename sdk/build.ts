// `npm run build:sdk`: flagship-sdk into sdk/dist. The JavaScript is one minified ESM build for Node 20+,
// Bun and browsers (Bun.build, code splitting: index.js and openfeature.js share their code, and re2js
// goes to a chunk of its own that only a `matches` condition loads); the types are emitted by tsc from
// sdk/tsconfig.json into dist/types. sizes() measures what a browser downloads up front and on demand.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { gzipSync } from 'node:zlib'

export const SDK_DIR = import.meta.dir
export const DIST = join(SDK_DIR, 'dist')
const ROOT = join(SDK_DIR, '..')

export async function buildSdk(outDir = DIST): Promise<void> {
  rmSync(outDir, { recursive: true, force: true })
  const result = await Bun.build({
    entrypoints: [join(SDK_DIR, 'src', 'index.ts'), join(SDK_DIR, 'src', 'openfeature.ts')],
    outdir: outDir,
    target: 'browser',
    format: 'esm',
    splitting: true,
    minify: true,
    sourcemap: 'linked',
    naming: { entry: '[name].js', chunk: 'chunks/[name]-[hash].js' },
  })
  if (!result.success) throw new AggregateError(result.logs, 'Bun.build failed')
  const tsc = Bun.spawnSync(
    [
      'node',
      join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
      '-p',
      join(SDK_DIR, 'tsconfig.json'),
      '--outDir',
      join(outDir, 'types'),
    ],
    { stdout: 'pipe', stderr: 'pipe' },
  )
  if (tsc.exitCode !== 0) throw new Error(`tsc failed:\n${tsc.stdout.toString()}${tsc.stderr.toString()}`)
  // The sources import without extensions (bundler resolution); consumers resolving as Node does
  // (moduleResolution node16/nodenext) need them in the declarations.
  for (const file of new Bun.Glob('**/*.d.ts').scanSync(join(outDir, 'types'))) {
    const path = join(outDir, 'types', file)
    writeFileSync(path, readFileSync(path, 'utf8').replace(/(from\s*|import\()(["'])(\.{1,2}\/[^"']+?)(?<!\.js)\2/g, '$1$2$3.js$2'))
  }
}

// Static imports (`import{a as b}from"./chunks/x.js"`, `import"./x.js"`, `export{…}from"./x.js"`) and
// dynamic ones (`import("./chunks/y.js")`), as Bun's minified output writes them.
const STATIC = /(?:\bimport|\bexport)\s*(?:[^"'();]*?\bfrom\s*)?["'](\.[^"']+)["']/g
const DYNAMIC = /\bimport\(\s*["'](\.[^"']+)["']\s*\)/g

/** The built files `entry` loads before it runs (itself and its static imports, transitively). */
export function upFront(entry: string): string[] {
  const seen = new Set<string>()
  const visit = (file: string): void => {
    if (seen.has(file)) return
    seen.add(file)
    const code = readFileSync(file, 'utf8').replace(DYNAMIC, '')
    for (const m of code.matchAll(STATIC)) visit(join(dirname(file), m[1]!))
  }
  visit(entry)
  return [...seen]
}

/** The built files loaded only through a dynamic import somewhere in `files`' graph. */
export function onDemand(entry: string): string[] {
  const eager = new Set(upFront(entry))
  const lazy = new Set<string>()
  for (const file of eager) {
    for (const m of readFileSync(file, 'utf8').matchAll(DYNAMIC))
      for (const f of upFront(join(dirname(file), m[1]!))) if (!eager.has(f)) lazy.add(f)
  }
  return [...lazy]
}

const gzipBytes = (files: string[]): number => files.reduce((n, f) => n + gzipSync(readFileSync(f)).length, 0)

export interface Sizes {
  /** minified + gzip bytes of index.js and what it imports statically */
  upFront: number
  /** the same for what it loads on demand (re2js for `matches`) */
  onDemand: number
  upFrontFiles: string[]
  onDemandFiles: string[]
}

/** Sizes of the built browser entry (build first). */
export function sizes(entry = join(DIST, 'index.js')): Sizes {
  const eager = upFront(entry)
  const lazy = onDemand(entry)
  return { upFront: gzipBytes(eager), onDemand: gzipBytes(lazy), upFrontFiles: eager, onDemandFiles: lazy }
}

/** What the service serves under /sdk/ (routes/sdk.ts): the browser build (index.js, also as flagship.js, an
 *  ES module a page imports straight from the service; openfeature.js; chunks/) and flagship-sdk.tgz, the npm
 *  package (`npm install https://<host>/sdk/flagship-sdk.tgz`) carrying the service's own version. Built in a
 *  private folder, so servers starting at once never read each other's half-written build. */
export async function packSdk(version: string): Promise<Map<string, Uint8Array>> {
  const out = mkdtempSync(join(tmpdir(), 'flagship-sdk-build-'))
  try {
    await buildSdk(out)
    const served = new Map<string, Uint8Array>()
    const packed: Record<string, Uint8Array | string> = {}
    for (const file of new Bun.Glob('**/*').scanSync(out)) {
      const bytes = new Uint8Array(readFileSync(join(out, file)))
      packed[`package/dist/${file}`] = bytes
      if (!file.startsWith('types/')) served.set(file, bytes)
    }
    served.set('flagship.js', served.get('index.js')!)
    const manifest = JSON.parse(readFileSync(join(SDK_DIR, 'package.json'), 'utf8'))
    packed['package/package.json'] = `${JSON.stringify({ ...manifest, version }, null, 2)}\n`
    packed['package/README.md'] = readFileSync(join(SDK_DIR, 'README.md'), 'utf8')
    packed['package/LICENSE'] = readFileSync(join(ROOT, 'LICENSE'), 'utf8')
    served.set('flagship-sdk.tgz', await new Bun.Archive(packed, { compress: 'gzip' }).bytes())
    return served
  } finally {
    rmSync(out, { recursive: true, force: true })
  }
}

if (import.meta.main) {
  await buildSdk()
  const s = sizes()
  const kB = (n: number) => `${(n / 1024).toFixed(1)} kB`
  console.log(
    `flagship-sdk built into ${DIST}: up front ${kB(s.upFront)} min+gzip (${s.upFrontFiles.length} files), ` +
      `on demand ${kB(s.onDemand)} (the regex engine)`,
  )
}
