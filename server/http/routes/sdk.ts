// GET /sdk/…: the service serves its own SDK, built from this release, so it always matches the server:
// flagship-sdk.tgz for `npm install https://<host>/sdk/flagship-sdk.tgz`, and flagship.js (with openfeature.js
// and the chunks they load) for a page to import straight from the service, no bundler needed. Public, and
// readable from any origin (a module script from another origin is a CORS request).
import { embeddedFiles, isEmbedded } from '../../assets'
import { VERSION } from '../../version'
import { errorResponse } from '../errors'
import { routeModule } from './common'

/** Not in the OpenAPI document, and open to anyone (route-inventory.ts). */
const PUBLIC_HIDDEN = { hide: true, 'x-permission': 'public' }

let files: Promise<Map<string, Uint8Array>> | undefined

/** The served files: embedded in the binary, or built from sdk/ on first request when run from source. */
function sdkFiles(): Promise<Map<string, Uint8Array>> {
  if (isEmbedded()) {
    const prefix = 'sdk/'
    return (files ??= Promise.resolve(
      new Map([...embeddedFiles()!].filter(([k]) => k.startsWith(prefix)).map(([k, v]) => [k.slice(prefix.length), v])),
    ))
  }
  if (!files) {
    files = import('../../../sdk/build').then((m) => m.packSdk(VERSION))
    files.catch(() => (files = undefined)) // a failed build is tried again by the next request
  }
  return files
}

const TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  map: 'application/json; charset=utf-8',
  tgz: 'application/gzip',
}

export const sdkRoutes = () =>
  routeModule('sdk').get(
    '/sdk/*',
    async ({ params, request }) => {
      const name = params['*']
      const bytes = (await sdkFiles()).get(name)
      if (!bytes) return errorResponse(404, 'NOT_FOUND', `No SDK file ${name} (try /sdk/flagship-sdk.tgz or /sdk/flagship.js)`)
      const etag = `"${VERSION}-${Bun.hash(bytes).toString(36)}"`
      const headers: Record<string, string> = {
        'content-type': TYPES[name.split('.').pop()!] ?? 'application/octet-stream',
        // Chunk names carry a content hash; the entry points keep their names across releases.
        'cache-control': name.startsWith('chunks/') ? 'public, max-age=31536000, immutable' : 'public, max-age=300',
        'access-control-allow-origin': '*',
        etag,
      }
      if (name === 'flagship-sdk.tgz') headers['content-disposition'] = `attachment; filename="flagship-sdk-${VERSION}.tgz"`
      if (request.headers.get('if-none-match') === etag) return new Response(null, { status: 304, headers })
      return new Response(bytes as Uint8Array<ArrayBuffer>, { headers })
    },
    { detail: PUBLIC_HIDDEN },
  )
