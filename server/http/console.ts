// The admin console (web/): built with Vite when its build is missing or older than its sources, then
// served as static files with index.html for the console's client-side routes. The single binary carries
// the build (assets.ts) and never builds.
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { assetFile, isEmbedded } from '../assets'
import { errorResponse } from './errors'

const WEB = join(import.meta.dir, '..', '..', 'web')
export const CONSOLE_DIST = join(WEB, 'dist')
const INDEX = join(CONSOLE_DIST, 'index.html')

function newestMtime(path: string): number {
  if (!existsSync(path)) return 0
  const st = statSync(path)
  if (!st.isDirectory()) return st.mtimeMs
  return readdirSync(path).reduce(
    (max, name) => (name === 'dist' || name === 'node_modules' ? max : Math.max(max, newestMtime(join(path, name)))),
    st.mtimeMs,
  )
}

/** The pure server modules the console imports code (not only types) from. */
const SHARED = ['engine', 'store/vocabulary', 'identity/oidc-return-to.ts'].map((p) => join(WEB, '..', 'server', p))

export function consoleIsStale(): boolean {
  if (!existsSync(INDEX)) return true
  const built = statSync(INDEX).mtimeMs
  return [WEB, ...SHARED].some((p) => newestMtime(p) > built)
}

/** Builds the console if needed. Returns false (and the API still runs) when the build fails. */
export async function ensureConsoleBuilt(
  log: (msg: string, fields?: Record<string, unknown>, level?: 'info' | 'warn' | 'error') => void,
): Promise<boolean> {
  if (isEmbedded()) return assetFile('console', 'index.html') !== undefined
  if (!existsSync(join(WEB, 'index.html'))) return false
  if (!consoleIsStale()) return true
  log('building the admin console (web/) with vite')
  const vite = join(import.meta.dir, '..', '..', 'node_modules', '.bin', 'vite')
  const proc = Bun.spawn([vite, 'build', '--config', join(WEB, 'vite.config.ts'), '--logLevel', 'warn'], {
    stdout: 'inherit',
    stderr: 'inherit',
    cwd: join(WEB, '..'),
  })
  const code = await proc.exited
  if (code !== 0) log('console build failed; the API is served without the console', { exit_code: code }, 'error')
  return code === 0
}

/** index.html for a console route (a path without a file extension), undefined otherwise. */
export function consoleResponse(path: string): Response | undefined {
  const index = /\.[a-z0-9]+$/i.test(path) ? undefined : assetFile('console', 'index.html')
  if (!index) return undefined
  return new Response(index, { headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache' } })
}

/** GET /assets/<file>: the console's built files; their names carry a content hash, so they are kept for good. */
export function consoleAsset(file: string): Response {
  const body = assetFile('console', `assets/${file}`)
  if (!body) return errorResponse(404, 'NOT_FOUND', `No console asset ${file}`)
  return new Response(body, {
    headers: { 'content-type': body.type || 'application/octet-stream', 'cache-control': 'public, max-age=31536000, immutable' },
  })
}
