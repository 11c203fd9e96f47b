// Relay mode (docs/operations.md, Relays): the same process, started with UPSTREAM_URL and UPSTREAM_TOKEN,
// with no database. Its snapshot and change hub are the origin's own classes, fed by the follower from the
// upstream instead of a store; the app is the origin's evaluation surface (http/relay-edge.ts). Without the
// upstream and without RELAY_CACHE_FILE it stays up and answers 503 NOT_READY until the upstream answers.
import type { Settings } from '../settings'
import { Snapshots } from '../cache/snapshots'
import { ChangeHub } from '../streams/hub'
import { TicketSigner } from '../streams/tickets'
import { Authenticator } from '../http/auth'
import { MemoryRateLimiter } from '../http/rate-limit'
import { RedisRateLimiter } from '../http/rate-limit-redis'
import { RequestMetrics } from '../metrics/requests'
import { OperationCounts } from '../metrics/counts'
import { createExposition } from '../metrics/exposition'
import { createAccess } from '../access/authorize'
import { createApp } from '../http/app'
import { listen } from '../http/listen'
import type { RelayState } from '../http/deps'
import { expiryOf, hashToken } from '../access/tokens'
import { drainCounts } from '../usage/counter'
import { log } from '../log'
import { VERSION } from '../version'
import { cacheWriter, readCache, type RelayCache } from './cache-file'
import { Follower } from './follower'
import { Forwarder } from './forwarder'
import { RelayKeys } from './keys'
import { startExposureForwarding, variantServed } from './exposure-forwarder'

export async function startRelay(settings: Settings & { upstreamUrl: string; upstreamToken: string }) {
  const upstreamUrl = settings.upstreamUrl
  if (settings.databaseUrlGiven)
    log(
      "DATABASE_URL is ignored: a relay has no database of its own (it serves its upstream's data from memory)",
      { upstream: upstreamUrl },
      'warn',
    )
  const snapshots = new Snapshots(undefined)
  const hub = new ChangeHub({
    store: undefined,
    replayLimit: settings.streamReplayLimit,
    heartbeatMs: settings.streamHeartbeatMs,
    log,
    applyToCache: async () => {},
    stillAllowed: (s, now) => {
      const token = snapshots.token(s.tokenHash)
      return token !== undefined && token.projectId === s.projectId && expiryOf(token) > now
    },
  })
  await hub.start()

  let saveState = () => {}
  const changed = () => saveState()
  let keys: RelayKeys
  const follower = new Follower({
    url: upstreamUrl,
    token: settings.upstreamToken,
    tokenHash: hashToken(settings.upstreamToken),
    pollMs: settings.upstreamPollMs,
    snapshots,
    hub,
    keys: () => keys,
    log,
    changed,
  })
  keys = new RelayKeys({ snapshots, verify: (h) => follower.verify(h), projectId: () => follower.project?.id, changed, log })
  const cache = settings.relayCacheFile ? readCache(settings.relayCacheFile, upstreamUrl, log) : undefined
  if (cache) {
    follower.restore(cache)
    keys.restore(cache.keys)
    log('serving the last state from RELAY_CACHE_FILE until the upstream answers', {
      file: settings.relayCacheFile,
      version: cache.head,
      saved_age_s: Math.round((Date.now() - cache.confirmedAt) / 1000),
    })
  }
  const forwarder = new Forwarder({ upstreamUrl, token: settings.upstreamToken, log, changed }, cache?.spool ?? [], cache?.taken ?? [])
  const state = (): RelayCache | undefined =>
    follower.project &&
    follower.definitions && {
      format: 1,
      upstream: upstreamUrl,
      confirmedAt: follower.confirmedAt ?? 0,
      project: follower.project,
      environment: follower.environment,
      head: follower.head,
      etag: follower.etag,
      definitions: follower.definitions,
      keys: keys.held(),
      spool: forwarder.spooled(),
      taken: forwarder.takenIds(),
    }
  const writer = settings.relayCacheFile ? cacheWriter(settings.relayCacheFile, state, log) : undefined
  if (writer) saveState = () => writer.save()

  // The relay's own evaluations count like an origin's; they go upstream as usage batches.
  let countedSince = new Date().toISOString()
  const usageTimer = setInterval(() => {
    const to = new Date().toISOString()
    const counts = drainCounts().map((c) => ({
      key: c.key,
      environment: c.environment,
      variant: c.variant,
      count: c.count,
      from: countedSince,
      to,
    }))
    countedSince = to
    forwarder.add('/api/v1/usage', counts)
  }, settings.usageFlushMs)
  // Its exposures (of the running experiments the upstream's definitions list) go upstream as events.
  const exposures = startExposureForwarding({
    forward: (events) => forwarder.add('/api/v1/events', events),
    served: (flag, variant) => variantServed(snapshots, follower.project?.id, flag, variant),
    flushMs: settings.exposureFlushMs,
    log,
  })

  const relay: RelayState = {
    upstreamUrl,
    ready: () => follower.definitions !== undefined,
    upstream: () => follower.state,
    dataAgeSeconds: () => (follower.confirmedAt === null ? null : Math.max(0, Math.round((Date.now() - follower.confirmedAt) / 100) / 10)),
    changeSequence: () => follower.head,
    forward: (path, items, batchId) => forwarder.add(path, items, batchId),
    batches: () => forwarder.stats(),
  }
  const requests = new RequestMetrics()
  const counts = new OperationCounts()
  const exposition = createExposition({ requests, counts, subscribers: () => hub.subscriberCount, relay })
  // Stream tickets signed with a key derived from the relay key: every relay sharing it (behind one load
  // balancer) accepts the others' tickets.
  const tickets = new TicketSigner(
    new Bun.CryptoHasher('sha256').update(`stream-tickets\u0000${settings.upstreamToken}`).digest('base64url'),
  )
  const authenticator = new Authenticator(snapshots, undefined, tickets, (hashes) => keys.resolve(hashes))
  const limiter = settings.redisUrl ? await RedisRateLimiter.create(settings.redisUrl, log) : new MemoryRateLimiter()
  // A relay knows no people: only tokens, verified upstream.
  const access = createAccess({ directory: { get: () => undefined }, snapshots })
  const { app, fetch } = createApp({
    settings,
    snapshots,
    authenticator,
    limiter,
    log,
    hub,
    tickets,
    metrics: { requests, counts, exposition },
    access,
    relay,
  })
  const server = listen(app, fetch, { hostname: settings.host, port: settings.port })
  const running = follower.run()
  const sweep = setInterval(() => limiter.sweep(), 60_000)
  log('listening', {
    url: `http://${settings.host}:${server.port}`,
    port: server.port,
    version: VERSION,
    mode: 'relay',
    upstream: upstreamUrl,
    ready: relay.ready(),
  })

  return {
    app,
    hub,
    port: server.port,
    async stop() {
      clearInterval(usageTimer)
      clearInterval(sweep)
      follower.stop()
      exposures.stop()
      forwarder.stop()
      writer?.flush()
      hub.stop()
      await app.stop()
      await running.catch(() => {})
      if (limiter instanceof RedisRateLimiter) await limiter.stop()
      await authenticator.stop()
    },
  }
}
