// /api/v1/segments: every versioned document's routes (versioned-document-routes.ts), nothing of its own.
// Every endpoint, reads included, needs write:flags (segments exist to target flags: kinds/segment.ts).
import { segmentKind } from '../../kinds'
import type { AppDeps } from '../deps'
import { routeModule } from './common'
import { documentListRoute, versionedDocumentRoutes } from './versioned-document-routes'

export const segmentRoutes = ({ services }: Pick<AppDeps, 'services'>) =>
  routeModule('segments')
    .use(documentListRoute(segmentKind, { page: services.segments.page, summary: 'List segments', maxAge: 30 }))
    .use(
      versionedDocumentRoutes(segmentKind, {
        definitionPath: '/:key',
        definitionMaxAge: 30,
        get: services.segments.get,
        create: services.segments.create,
        update: services.segments.update,
        remove: services.segments.delete,
        forceDelete: true,
        deleteErrors: [401, 403, 404, 409, 429],
        summaries: {
          definition: 'Get a segment',
          create: 'Create a segment',
          update: "Replace a segment's conditions",
          delete: 'Delete a segment (409 IN_USE while flag rules reference it, unless ?force=true)',
        },
      }),
    )
