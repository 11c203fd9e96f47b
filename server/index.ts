// Composition root: settings -> store -> bootstrap -> cache -> services -> http app -> listen.
import { loadSettings, type Settings } from './settings'
import { openDatabase } from './store/database'
import { createStore } from './store'
import { bootstrap } from './services/bootstrap'
import { ChangeBus } from './notices/changes'
import { Snapshots } from './cache/snapshots'
import { createServices } from './services'
import { Authenticator } from './http/auth'
import { MemoryRateLimiter } from './http/rate-limit'
import { RedisRateLimiter } from './http/rate-limit-redis'
import { startFanout } from './cluster/fanout'
import { createApp } from './http/app'
import { listen } from './http/listen'
import { ensureConsoleBuilt } from './http/console'
import { errorForLog, log } from './log'
import { startDeliveryWorker } from './webhooks/worker'
import { startUsageFlusher } from './usage/flusher'
import { startExperimentWorkers } from './experiments/flusher'
import { startReleaseMonitor } from './schedules/release-monitor'
import { startScheduleWorker } from './schedules/worker'
import { ChangeHub } from './streams/hub'
import { TicketSigner } from './streams/tickets'
import { RequestMetrics } from './metrics/requests'
import { OperationCounts } from './metrics/counts'
import { createExposition } from './metrics/exposition'
import { expiryOf } from './access/tokens'
import type { ChangeNotice } from './notices/changes'
import { randomBytes } from 'node:crypto'
import { listenStartupError, StartupError } from './startup-errors'
import { VERSION } from './version'
import { createIdentity } from './identity/service'
import { createAccess } from './access/authorize'
import { reviewersFrom } from './access/reviewers'
import { startFlagsFile } from './offline/flags-file'
import { lockServiceDatabase } from './store/service-lock'
import { relayRevocations } from './streams/revocations'
import { startRelay } from './relay/start'

/** How long an origin remembers the id of a batch a relay forwarded. */
const RELAY_BATCH_DAYS = 30

export async function startService(settings: Settings) {
  // Relay mode: no database; the upstream's data, served from memory (server/relay/).
  if (settings.upstreamUrl !== undefined && settings.upstreamToken !== undefined) {
    return startRelay({ ...settings, upstreamUrl: settings.upstreamUrl, upstreamToken: settings.upstreamToken })
  }
  if (settings.webhookAllowPrivateTargets) {
    log(
      'WEBHOOK_ALLOW_PRIVATE_TARGETS is on: webhooks may target plain http and private or loopback addresses. ' +
        'Never use this in production.',
      {},
      'warn',
    )
  }
  // A busy port is found before anything starts (workers would otherwise run, and log, while we give up).
  if (settings.port !== 0) {
    try {
      Bun.listen({ hostname: settings.host, port: settings.port, socket: { data() {} } }).stop(true)
    } catch (e) {
      throw listenStartupError(e, settings.host, settings.port) ?? e
    }
  }
  // A SQLite database belongs to one live service: its lock keeps a restore (and a second service) off it.
  const serviceLock = lockServiceDatabase(settings.databaseUrl)
  let database: Awaited<ReturnType<typeof openDatabase>>
  try {
    database = await openDatabase(settings.databaseUrl)
  } catch (e) {
    serviceLock?.release()
    throw e
  }
  const store = createStore(database)
  const boot = await bootstrap(store, settings.bootstrapToken)
  if (boot.generatedToken) {
    // Printed exactly once, on the first start of an empty database; only its hash is stored.
    console.log(`\n==== ADMIN TOKEN for project "default" (shown once, store it now) ====\n${boot.generatedToken}\n====\n`)
  }

  // One id per process: tells this instance's own change notices and outbox claims apart from others'.
  const instanceId = crypto.randomUUID()
  // Counted from here on for GET /metrics (read at scrape time; exposition.ts).
  const requests = new RequestMetrics()
  const counts = new OperationCounts()
  const bus = new ChangeBus()
  const snapshots = new Snapshots(store)
  // Offline mode: the project's documents come from FLAGS_FILE (read first, so the first reconcile uses it).
  const flagsFile = settings.flagsFile
    ? await startFlagsFile({
        path: settings.flagsFile,
        projectId: settings.flagsProject,
        pollMs: settings.flagsFilePollMs,
        store,
        snapshots,
        bus,
        replayLimit: settings.streamReplayLimit,
        log,
      })
    : undefined
  await snapshots.reconcile()
  // Change streams: a notice reaches subscribers only once this instance's caches show the change, so a
  // client that re-reads on an event gets the new answer.
  const hub = new ChangeHub({
    store,
    replayLimit: settings.streamReplayLimit,
    heartbeatMs: settings.streamHeartbeatMs,
    log,
    applyToCache: (n) => snapshots.apply(n),
    // Checked periodically for every open stream: a revoked token, an ended session or a person who lost
    // access to the project (a personal token's owner included) closes it.
    stillAllowed: (s, now) => {
      if (s.tokenHash.startsWith('session:')) {
        const userId = identity.sessions.liveUser(s.tokenHash.slice('session:'.length), now)
        const person = userId === undefined ? undefined : identity.directory.get(userId)
        return person !== undefined && !person.user.disabled && access.grantOf(person, s.projectId) !== undefined
      }
      const token = snapshots.token(s.tokenHash)
      return token !== undefined && token.projectId === s.projectId && expiryOf(token) > now && access.personalTokenLive(token)
    },
  })
  await hub.start()
  // Relays following this instance hear of tokens it no longer holds (a `revoke` on their stream).
  const revocations = relayRevocations(snapshots, hub)
  const onNotice = async (notice: ChangeNotice) => {
    await revocations.apply(notice, (n) => snapshots.apply(n))
    await hub.ingest(notice)
  }
  // A commit's notices together: the cache reloads its documents in bulk, then the hub takes every stream
  // entry in order (it queues them per project).
  const onNotices = async (notices: readonly ChangeNotice[]) => {
    await revocations.apply(notices, (n) => snapshots.applyMany(n))
    await Promise.all(notices.map((n) => hub.ingest(n)))
  }
  bus.subscribe(onNotice, onNotices)
  const services = createServices(store, bus, snapshots, settings)
  // Experiments: the running ones are known in memory (evaluation records exposures without the store); a
  // change to an experiment reloads them, a flag change may open a phase, an applied change request may stop one.
  await services.experiments.reloadRegistry()
  // The registry is reloaded before the caches and streams hear of the change (the SDKs' /definitions name
  // the running experiments).
  const reloadExperiments = async (n: ChangeNotice) => {
    if (n.resourceType === 'experiment') await services.experiments.reloadRegistry()
  }
  const followExperiments = (n: ChangeNotice) =>
    services.experimentStops.onNotice(n).catch((e) => log('experiment follow-up failed', errorForLog(e), 'warn'))
  bus.subscribe(reloadExperiments, undefined, true)
  bus.subscribe(followExperiments)
  // Release plans: the measured ones are known in memory like experiments; an applied change request starts one.
  await services.releasePlans.reloadRegistry()
  const reloadReleasePlans = async (n: ChangeNotice) => {
    if (n.resourceType === 'release_plan') await services.releasePlans.reloadRegistry()
  }
  bus.subscribe(reloadReleasePlans, undefined, true)
  bus.subscribe((n: ChangeNotice) =>
    services.releasePlans.onNotice(n).catch((e) => log('release plan follow-up failed', errorForLog(e), 'warn')),
  )
  const tickets = new TicketSigner(
    await store.transaction((tx) => store.serverKeys.getOrCreate(tx, 'stream-tickets', randomBytes(32).toString('base64url'))),
  )
  const authenticator = new Authenticator(snapshots, store, tickets)
  // Webhook outbox: rows are written in each change's transaction; the worker sends them (and whatever a
  // previous process left queued). A committed change kicks it; it also polls for retries and other instances' rows.
  const deliveryWorker = startDeliveryWorker({
    store,
    settings,
    instanceId,
    log,
    pauseAfterMs: settings.webhookPauseAfterMs,
    backoffMaxMs: settings.webhookBackoffMaxMs,
    counts,
  })
  bus.subscribe(
    () => deliveryWorker.kick(),
    () => deliveryWorker.kick(),
  )
  // Evaluation counts (usage/counter.ts) go to the store's hourly buckets every USAGE_FLUSH_MS and at stop.
  const usageFlusher = startUsageFlusher({ store, intervalMs: settings.usageFlushMs, log })
  const experimentWorkers = startExperimentWorkers({
    store,
    flushMs: settings.exposureFlushMs,
    retentionDays: settings.eventsRetentionDays,
    log,
  })
  const releaseMonitor = startReleaseMonitor({ monitor: services.releaseMonitor, instanceId, intervalMs: settings.releaseMonitorMs, log })
  // Scheduled changes: the worker sleeps until the next one is due; a schedule created or cancelled here or
  // on another instance (its change notice) may move that time.
  const scheduleWorker = startScheduleWorker({
    schedules: services.schedules,
    changeRequests: services.changeRequests,
    log,
    onStoreError: () => counts.storeError('schedules'),
  })
  const wakeForSchedules = (n: ChangeNotice) => {
    if (n.resourceType === 'schedule' || n.resourceType === 'change_request') scheduleWorker.wake()
  }
  bus.subscribe(wakeForSchedules)
  const limiter = settings.redisUrl ? await RedisRateLimiter.create(settings.redisUrl, log) : new MemoryRateLimiter()
  // People (teams): the directory and session cache follow change notices like the snapshots do.
  const identity = createIdentity({ store, bus, settings, limiter })
  const setupCode = await identity.start()
  const access = createAccess({ directory: identity.directory, snapshots })
  revocations.useLiveness((t) => access.personalTokenLive(t))
  services.changeRequests.useReviewers(reviewersFrom(identity.directory, access, snapshots))
  const onIdentityNotice = (n: ChangeNotice) =>
    revocations.apply(n, async (x) => {
      identity.sessions.apply(x)
      await identity.directory.apply(x)
    })
  bus.subscribe(onIdentityNotice)
  // Another instance's change reloads this one's registries (experiments, release plans) before its caches,
  // as a local change does: otherwise its evaluations would be measured against a plan or phase it missed.
  const fromOtherInstance = async (n: ChangeNotice) => {
    wakeForSchedules(n)
    await reloadExperiments(n)
    await reloadReleasePlans(n)
    await onNotice(n)
    await onIdentityNotice(n)
    await followExperiments(n)
  }
  const fromOtherInstanceAll = async (notices: readonly ChangeNotice[]) => {
    notices.forEach(wakeForSchedules)
    for (const n of notices) await reloadExperiments(n)
    if (notices.some((n) => n.resourceType === 'release_plan')) await services.releasePlans.reloadRegistry()
    await onNotices(notices)
    for (const n of notices) await onIdentityNotice(n)
    for (const n of notices) await followExperiments(n)
  }
  const fanout = await startFanout({
    instanceId,
    redisUrl: settings.redisUrl,
    pg: database.pg,
    bus,
    apply: fromOtherInstance,
    applyAll: fromOtherInstanceAll,
    log,
  })

  await ensureConsoleBuilt(log)
  const exposition = createExposition({
    requests,
    counts,
    subscribers: () => hub.subscriberCount,
    queueDepth: () => store.deliveries.backlog(store.db),
  })
  const { app, fetch } = createApp({
    settings,
    store,
    snapshots,
    services,
    authenticator,
    limiter,
    log,
    hub,
    tickets,
    metrics: { requests, counts, exposition },
    identity,
    access,
  })
  const server = listen(app, fetch, { hostname: settings.host, port: settings.port })

  const timers = [
    setInterval(() => limiter.sweep(), 60_000),
    // Relays' batch ids (forwarded usage) are kept 30 days: a relay resends only a batch whose answer it lost.
    setInterval(
      () =>
        store
          .transaction((tx) => store.relayBatches.prune(tx, new Date(Date.now() - RELAY_BATCH_DAYS * 86_400_000).toISOString()))
          .catch((e) => {
            counts.storeError('reconcile')
            log('pruning relay batch ids failed', errorForLog(e), 'warn')
          }),
      3_600_000,
    ),
    // Heals a change notice this instance missed (another instance's write, the CLI).
    setInterval(
      () =>
        revocations
          .around(() => snapshots.reconcile())
          .then(() => hub.catchUp())
          .then(() => identity.directory.reload())
          .then(() => services.experiments.reloadRegistry())
          .then(() => services.releasePlans.reloadRegistry())
          .catch((e) => {
            counts.storeError('reconcile')
            log('reconcile failed', errorForLog(e), 'warn')
          }),
      settings.reconcileIntervalMs,
    ),
  ]
  // Where a person goes next, in plain words: the console's address and, on the first start, how to sign in.
  // Printed before the `listening` line, which is what scripts wait for, so they find these lines too.
  const consoleUrl = settings.publicUrl
    ? `${settings.publicUrl}/`
    : `http://${['0.0.0.0', '::', ''].includes(settings.host) ? 'localhost' : settings.host}:${server.port}/`
  console.log(`Flagship ${VERSION} is running. Console: ${consoleUrl}  API docs: ${consoleUrl}docs`)
  if (boot.created) {
    console.log(
      boot.generatedToken
        ? 'First start: open the console and paste the admin token printed above to sign in.'
        : 'First start: open the console and sign in with the admin token you set in BOOTSTRAP_TOKEN.',
    )
  }
  if (setupCode !== undefined) {
    // Printed on a line of its own (never through the JSON log): whoever reads the log creates the first owner.
    console.log(`No user yet: open ${consoleUrl}setup and enter the setup code.\nsetup code: ${setupCode}`)
  }
  log('listening', {
    url: `http://${settings.host}:${server.port}`,
    port: server.port,
    version: VERSION,
    database: database.dialect,
    fanout: fanout.kind,
    instance: instanceId,
  })

  return {
    app,
    hub,
    port: server.port,
    async stop() {
      timers.forEach(clearInterval)
      await flagsFile?.stop()
      hub.stop()
      await app.stop()
      await scheduleWorker.stop()
      await deliveryWorker.stop()
      await usageFlusher.stop()
      await releaseMonitor.stop()
      await experimentWorkers.stop()
      await fanout.stop()
      if (limiter instanceof RedisRateLimiter) await limiter.stop()
      await authenticator.stop()
      await identity.stop()
      await database.close()
      serviceLock?.release()
    },
  }
}

/** `npm start` and the binary: start, or stop with one line saying why not (startup-errors.ts). */
export async function main(): Promise<void> {
  let settings: Settings
  try {
    settings = loadSettings()
  } catch (e) {
    console.error(`configuration error: ${(e as Error).message}`)
    process.exit(2)
  }
  let service: Awaited<ReturnType<typeof startService>>
  try {
    service = await startService(settings)
  } catch (e) {
    if (!(e instanceof StartupError)) throw e
    console.error(`Flagship cannot start: ${e.message}`)
    process.exit(1)
  }
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, async () => {
      log('shutting down', { signal })
      await service.stop()
      process.exit(0)
    })
  }
}

if (import.meta.main) await main()
