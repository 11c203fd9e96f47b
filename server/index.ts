// Composition root: settings -> store -> bootstrap -> cache -> services -> http app -> listen.
import { loadSettings, type Settings } from './settings'
import { openDatabase } from './store/database'
import { createStore } from './store'
import { bootstrap } from './services/bootstrap'
import { ChangeBus } from './services/events'
import { Snapshots } from './cache/snapshots'
import { createServices } from './services'
import { Authenticator } from './http/auth'
import { MemoryRateLimiter } from './http/rate-limit'
import { RedisRateLimiter } from './http/rate-limit-redis'
import { startFanout } from './cluster/fanout'
import { createApp } from './http/app'
import { ensureConsoleBuilt } from './http/console'
import { errorForLog, log } from './log'
import { startDeliveryWorker } from './webhooks/worker'

export async function startService(settings: Settings) {
  if (settings.webhookAllowPrivateTargets) {
    log('WEBHOOK_ALLOW_PRIVATE_TARGETS is on: webhooks may target plain http and private or loopback addresses. Never use this in production.', {}, 'warn')
  }
  const database = await openDatabase(settings.databaseUrl)
  const store = createStore(database)
  const boot = await bootstrap(store, settings.bootstrapToken)
  if (boot.generatedToken) {
    // Printed exactly once, on the first start of an empty database; only its hash is stored.
    console.log(`\n==== ADMIN TOKEN for project "default" (shown once, store it now) ====\n${boot.generatedToken}\n====\n`)
  }

  // One id per process: tells this instance's own change notices and outbox claims apart from others'.
  const instanceId = crypto.randomUUID()
  const bus = new ChangeBus()
  const snapshots = new Snapshots(store)
  await snapshots.reconcile()
  bus.subscribe((notice) => snapshots.apply(notice))
  const services = createServices(store, bus, snapshots, settings)
  const authenticator = new Authenticator(snapshots, store)
  // Webhook outbox: rows are written in each change's transaction; the worker sends them (and whatever a
  // previous process left queued). A committed change kicks it; it also polls for retries and other instances' rows.
  const deliveryWorker = startDeliveryWorker({ store, settings, instanceId, log, pauseAfterMs: settings.webhookPauseAfterMs, backoffMaxMs: settings.webhookBackoffMaxMs })
  bus.subscribe(() => deliveryWorker.kick())
  const limiter = settings.redisUrl ? new RedisRateLimiter(settings.redisUrl, log) : new MemoryRateLimiter()
  const fanout = await startFanout({ instanceId, redisUrl: settings.redisUrl, pg: database.pg, bus, apply: (n) => snapshots.apply(n), log })

  await ensureConsoleBuilt(log)
  const app = createApp({ settings, store, snapshots, services, authenticator, limiter, log })
  // Bun's own body cut-off answers an empty 413; ours (json-input.ts, 1 MiB) stops reading at the limit and
  // answers the JSON one, so Bun's is set out of the way.
  app.listen({ port: settings.port, hostname: settings.host, maxRequestBodySize: Number.MAX_SAFE_INTEGER })

  const timers = [
    setInterval(() => limiter.sweep(), 60_000),
    // Heals a change notice this instance missed (another instance's write, the CLI).
    setInterval(() => snapshots.reconcile().catch((e) => log('reconcile failed', errorForLog(e), 'warn')), settings.reconcileIntervalMs),
  ]
  const server = app.server!
  log('listening', { url: `http://${settings.host}:${server.port}`, port: server.port, database: database.dialect, fanout: fanout.kind, instance: instanceId })

  return {
    app,
    port: server.port,
    async stop() {
      timers.forEach(clearInterval)
      await app.stop()
      await deliveryWorker.stop()
      await fanout.stop()
      if (limiter instanceof RedisRateLimiter) await limiter.stop()
      await authenticator.stop()
      await database.close()
    },
  }
}

if (import.meta.main) {
  let settings: Settings
  try {
    settings = loadSettings()
  } catch (e) {
    console.error(`configuration error: ${(e as Error).message}`)
    process.exit(2)
  }
  const service = await startService(settings)
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, async () => {
      log('shutting down', { signal })
      await service.stop()
      process.exit(0)
    })
  }
}
