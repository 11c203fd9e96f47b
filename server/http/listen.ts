// Starts serving an application (app.ts): Bun.serve with the application's `fetch` (the fast paths, then
// Elysia; fast-dispatch.ts) and the options Elysia's own `listen` would set. The server is Elysia's too:
// its handlers read `server` from their context (client addresses, a stream's idle timeout) and
// `app.stop()` stops it.
import type { Server } from 'bun'
import type { Elysia } from 'elysia'
import { listenStartupError } from '../startup-errors'
import type { Fetch } from './fast-dispatch'

export interface ListenOptions {
  hostname: string
  port: number
}

/** Throws a StartupError (startup-errors.ts) when the port is in use or needs a permission we lack. */
export function listen(app: Pick<Elysia, 'server' | 'modules'>, fetch: Fetch, { hostname, port }: ListenOptions): Server<unknown> {
  // Elysia composes its fetch once; a plugin loaded lazily would add routes after that (none does).
  if (app.modules.size > 0) throw new Error('listen: lazily loaded Elysia plugins are not supported')
  let server: Server<unknown>
  try {
    server = Bun.serve({
      hostname,
      port,
      fetch,
      // Bun's own body cut-off answers an empty 413; ours (json-input.ts, 1 MiB) stops reading at the limit
      // and answers the JSON one, so Bun's is set out of the way.
      maxRequestBodySize: Number.MAX_SAFE_INTEGER,
      // As Elysia's listen sets them.
      development: (Bun.env.NODE_ENV ?? Bun.env.ENV) !== 'production',
      reusePort: true,
      idleTimeout: 30,
    })
  } catch (e) {
    throw listenStartupError(e, hostname, port) ?? e
  }
  app.server = server as unknown as Elysia['server']
  return server
}
