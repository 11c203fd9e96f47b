// GET /health: public liveness, with the store's reachability and the running release's version.
import { routeModule } from './common'
import { t } from 'elysia'
import type { AppDeps } from '../deps'
import { cachedJson } from '../caching'
import { VERSION } from '../../version'

export const healthRoutes = ({ settings, store }: Pick<AppDeps, 'settings' | 'store'>) =>
  routeModule('health').get(
    '/health',
    async ({ request }) => {
      let storeStatus = 'ok'
      try {
        await store.database.ping()
      } catch {
        storeStatus = 'unavailable'
      }
      // Evaluation keeps serving from memory while the store is down, so the service is degraded, not down.
      return cachedJson(
        request,
        { status: storeStatus === 'ok' ? 'ok' : 'degraded', version: VERSION, environment: settings.appEnv, store: storeStatus },
        { maxAge: 10, staleWhileRevalidate: 30, public: true },
      )
    },
    {
      detail: { tags: ['system'], summary: 'Liveness', 'x-permission': 'public' },
      response: {
        200: t.Object({
          status: t.String(),
          version: t.String({ description: 'the running release (CHANGELOG.md)' }),
          environment: t.String(),
          store: t.String(),
        }),
      },
    },
  )
