// The /docs page: Swagger UI, every file of it served by this server from the installed swagger-ui-dist
// package, so the interactive documentation works on machines without internet access and tells no other
// host who reads it (no fonts, validator badge, proxy or hosted-service links from elsewhere).
import { assetFile } from '../../assets'
import { errorResponse } from '../errors'
import { routeModule } from './common'

const ASSETS: Record<string, [file: string, type: string]> = {
  'swagger-ui.css': ['swagger-ui.css', 'text/css; charset=utf-8'],
  'swagger-ui-bundle.js': ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
}

// validatorUrl: null keeps Swagger UI from sending the document to its public validator for a badge.
const INIT = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  validatorUrl: null,
  deepLinking: true,
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
});
`

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Flagship API</title>
    <link rel="stylesheet" href="/docs/assets/swagger-ui.css" />
    <style>body { margin: 0 } .swagger-ui .topbar { display: none }</style>
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="/docs/assets/swagger-ui-bundle.js"></script>
    <script src="/docs/assets/init.js"></script>
  </body>
</html>
`

const cached = (body: BodyInit, type: string, maxAge: number) =>
  new Response(body, { headers: { 'content-type': type, 'cache-control': `public, max-age=${maxAge}` } })

/** Not in the OpenAPI document; public (declared for the route inventory). */
const HIDDEN = { hide: true, 'x-permission': 'public' }

export const docsRoutes = () =>
  routeModule('docs')
    .get('/docs', () => cached(PAGE, 'text/html; charset=utf-8', 300), { detail: HIDDEN })
    .get('/docs/assets/init.js', () => cached(INIT, 'text/javascript; charset=utf-8', 300), { detail: HIDDEN })
    .get(
      '/docs/assets/:file',
      ({ params }) => {
        // Own entries only: `constructor` or `toString` must not find Object's.
        const asset = Object.hasOwn(ASSETS, params.file) ? ASSETS[params.file] : undefined
        const body = asset && assetFile('swagger', asset[0])
        if (!asset || !body) return errorResponse(404, 'NOT_FOUND', 'No such documentation asset')
        return cached(body, asset[1], 86400)
      },
      { detail: HIDDEN },
    )
