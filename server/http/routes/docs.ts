// The /docs page's script, served from the installed @scalar/api-reference package so the interactive
// documentation works on machines without internet access.
import { routeModule } from './common'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

const require = createRequire(import.meta.url)
const SCALAR = join(dirname(require.resolve('@scalar/api-reference/package.json')), 'dist', 'browser', 'standalone.js')

export const docsAssetRoutes = () =>
  routeModule('docs-assets').get('/docs/assets/scalar.js', () =>
    new Response(Bun.file(SCALAR), { headers: { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'public, max-age=86400' } }),
    { detail: { hide: true } },
  )
