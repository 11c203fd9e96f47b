// Every environment variable the service reads, parsed and validated once (docs/behaviour.md §1).
import { isIP } from 'node:net'

export interface Settings {
  port: number
  host: string
  databaseUrl: string
  /** DATABASE_URL was set (a relay says it ignores it) */
  databaseUrlGiven: boolean
  redisUrl: string | undefined
  bootstrapToken: string | undefined
  appEnv: string
  rateLimitEvaluationPerMinute: number
  rateLimitManagementPerMinute: number
  webhookAllowPrivateTargets: boolean
  /** how often an instance re-reads every project to heal a missed change notice (ms) */
  reconcileIntervalMs: number
  /** a webhook failing for this long without a success is paused (ms) */
  webhookPauseAfterMs: number
  /** the longest a failing webhook's backoff grows between attempts (ms) */
  webhookBackoffMaxMs: number
  /** origins whose pages may call the evaluation endpoints (`*`: any) */
  corsOrigins: string[]
  /** how many of each project's newest changes are kept for streams resuming with Last-Event-ID */
  streamReplayLimit: number
  /** the interval of the streams' heartbeat comment (ms) */
  streamHeartbeatMs: number
  /** the address clients reach this service at, for absolute URLs we hand out (stream tickets); unset:
   *  taken from each request's Host */
  publicUrl: string | undefined
  /** how often evaluation counts are written to the store (ms) */
  usageFlushMs: number
  /** how often exposures recorded in memory are written to the store (ms) */
  exposureFlushMs: number
  /** how often the release plans' monitor checks the running plans (docs/experiments.md) */
  releaseMonitorMs: number
  /** track events one token may send per minute (POST /api/v1/events) */
  eventsPerMinute: number
  /** track events older than this many days are pruned */
  eventsRetentionDays: number
  /** a flag not evaluated (or serving one variant, unchanged) for this many days is stale */
  staleAfterDays: number
  /** the bearer token GET /metrics requires; unset: /metrics is open */
  metricsToken: string | undefined
  /** the one-time code that creates the first owner (teams); unset: one is generated and printed */
  setupCode: string | undefined
  /** a session unused this long ends (minutes) */
  sessionIdleMinutes: number
  /** a session ends this long after sign-in, used or not (hours) */
  sessionMaxHours: number
  /** offline mode (docs/as-code.md): the flags, configs and segments of `flagsProject` are served from this
   *  document file, read-only, reloaded when it changes */
  flagsFile: string | undefined
  flagsProject: string
  /** how often the file's modification is checked (ms) */
  flagsFilePollMs: number
  /** reverse proxies whose X-Forwarded-For is believed (addresses and CIDR ranges; http/client-address.ts) */
  trustedProxies: string[]
  /** one JSON line per request (http/access-log.ts) */
  accessLog: boolean
  /** relay mode (docs/operations.md, Relays): the upstream (origin or relay) this process follows, and the
   *  relay key it presents there; unset: an origin */
  upstreamUrl: string | undefined
  upstreamToken: string | undefined
  /** how often a relay whose stream is lost polls the upstream's definitions (ms) */
  upstreamPollMs: number
  /** where a relay keeps its last state and its spool of forwarded batches */
  relayCacheFile: string | undefined
}

export const TOKEN_PATTERN = /^ff_[a-z0-9]{4}_[A-Za-z0-9]{20}$/

function int(env: Record<string, string | undefined>, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  const n = Number(raw)
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name} must be an integer from ${min} to ${max}, got "${raw}"`)
  return n
}

function flag(env: Record<string, string | undefined>, name: string): boolean {
  const raw = (env[name] ?? '').toLowerCase()
  if (['', '0', 'false', 'no', 'off'].includes(raw)) return false
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true
  throw new Error(`${name} must be a boolean (1/0, true/false), got "${env[name]}"`)
}

/** CORS_ORIGINS: `*`, or comma-separated origins such as `https://app.example.com` (scheme, host, port). */
function origins(raw: string): string[] {
  const list = raw
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean)
  for (const o of list) {
    if (o !== '*' && !/^https?:\/\/[^/\s?#]+$/.test(o))
      throw new Error(`CORS_ORIGINS must be * or comma-separated origins like https://app.example.com, got "${o}"`)
  }
  return list
}

/** PUBLIC_URL: scheme, host and optional path prefix, without a trailing slash. */
function publicUrl(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined
  if (!/^https?:\/\/[^/\s?#]+(\/[^\s?#]*)?$/.test(raw))
    throw new Error(`PUBLIC_URL must be an http(s) URL like https://flags.example.com, got "${raw}"`)
  return raw.replace(/\/+$/, '')
}

/** METRICS_TOKEN: sent in an Authorization header, so visible ASCII without spaces; long enough not to be guessed. */
function metricsToken(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined
  if (!/^[\x21-\x7e]{16,256}$/.test(raw)) throw new Error('METRICS_TOKEN must be 16 to 256 visible ASCII characters without spaces')
  return raw
}

/** SETUP_CODE: typed by a person into the setup page; 16-128 visible ASCII characters. */
function setupCode(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined
  if (!/^[\x21-\x7e]{16,128}$/.test(raw)) throw new Error('SETUP_CODE must be 16 to 128 visible ASCII characters without spaces')
  return raw
}

/** UPSTREAM_URL and UPSTREAM_TOKEN: both or neither. */
function upstream(env: Record<string, string | undefined>): { upstreamUrl: string | undefined; upstreamToken: string | undefined } {
  const url = env.UPSTREAM_URL || undefined
  const token = env.UPSTREAM_TOKEN || undefined
  if (url === undefined && token === undefined) return { upstreamUrl: undefined, upstreamToken: undefined }
  if (url === undefined || token === undefined)
    throw new Error('UPSTREAM_URL and UPSTREAM_TOKEN go together: set both to run as a relay, or neither')
  if (!/^https?:\/\/[^/\s?#]+(\/[^\s?#]*)?$/.test(url))
    throw new Error(`UPSTREAM_URL must be an http(s) URL like https://flags.example.com, got "${url}"`)
  if (!TOKEN_PATTERN.test(token)) throw new Error('UPSTREAM_TOKEN must be a relay key (ff_<4 chars>_<20 chars>)')
  return { upstreamUrl: url.replace(/\/+$/, ''), upstreamToken: token }
}

export function loadSettings(env: Record<string, string | undefined> = process.env): Settings {
  const databaseUrl = env.DATABASE_URL || 'sqlite:./data/flags.db'
  if (!databaseUrl.startsWith('sqlite:') && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new Error(`DATABASE_URL must start with sqlite: or postgres://, got "${databaseUrl}"`)
  }
  const bootstrapToken = env.BOOTSTRAP_TOKEN || undefined
  if (bootstrapToken !== undefined && !TOKEN_PATTERN.test(bootstrapToken)) {
    throw new Error('BOOTSTRAP_TOKEN must match the token format ff_<4 chars of [a-z0-9]>_<20 chars of [A-Za-z0-9]>')
  }
  if (bootstrapToken !== undefined && !bootstrapToken.startsWith('ff_defa_')) {
    throw new Error('BOOTSTRAP_TOKEN belongs to project "default", so it must start with ff_defa_')
  }
  return {
    port: int(env, 'PORT', 8080, 0, 65535),
    host: env.HOST || '0.0.0.0',
    databaseUrl,
    databaseUrlGiven: Boolean(env.DATABASE_URL),
    redisUrl: env.REDIS_URL || undefined,
    bootstrapToken,
    appEnv: env.APP_ENV || 'development',
    rateLimitEvaluationPerMinute: int(env, 'RATE_LIMIT_EVALUATION_PER_MINUTE', 10000, 1, 1e9),
    rateLimitManagementPerMinute: int(env, 'RATE_LIMIT_MANAGEMENT_PER_MINUTE', 1000, 1, 1e9),
    webhookAllowPrivateTargets: flag(env, 'WEBHOOK_ALLOW_PRIVATE_TARGETS'),
    reconcileIntervalMs: int(env, 'RECONCILE_INTERVAL_MS', 30000, 100, 86400000),
    webhookPauseAfterMs: int(env, 'WEBHOOK_PAUSE_AFTER_MS', 86_400_000, 1000, 30 * 86_400_000),
    webhookBackoffMaxMs: int(env, 'WEBHOOK_BACKOFF_MAX_MS', 300_000, 1000, 86_400_000),
    corsOrigins: origins(env.CORS_ORIGINS ?? '*'),
    streamReplayLimit: int(env, 'STREAM_REPLAY_LIMIT', 1000, 1, 1_000_000),
    streamHeartbeatMs: int(env, 'STREAM_HEARTBEAT_MS', 15_000, 100, 300_000),
    publicUrl: publicUrl(env.PUBLIC_URL),
    usageFlushMs: int(env, 'USAGE_FLUSH_MS', 10_000, 100, 60_000),
    staleAfterDays: int(env, 'STALE_AFTER_DAYS', 30, 0, 3650),
    exposureFlushMs: int(env, 'EXPOSURE_FLUSH_MS', 10_000, 100, 60_000),
    releaseMonitorMs: int(env, 'RELEASE_MONITOR_MS', 60_000, 100, 3_600_000),
    eventsPerMinute: int(env, 'EVENTS_PER_MINUTE', 600_000, 1, 1e9),
    eventsRetentionDays: int(env, 'EVENTS_RETENTION_DAYS', 90, 1, 3650),
    metricsToken: metricsToken(env.METRICS_TOKEN),
    setupCode: setupCode(env.SETUP_CODE),
    sessionIdleMinutes: int(env, 'SESSION_IDLE_MINUTES', 480, 1, 525_600),
    sessionMaxHours: int(env, 'SESSION_MAX_HOURS', 168, 1, 8760),
    flagsFile: env.FLAGS_FILE || undefined,
    flagsProject: env.FLAGS_PROJECT || 'default',
    flagsFilePollMs: int(env, 'FLAGS_FILE_POLL_MS', 1000, 50, 60_000),
    trustedProxies: parseTrustedProxies(env.TRUSTED_PROXIES),
    accessLog: flag(env, 'ACCESS_LOG'),
    ...upstream(env),
    upstreamPollMs: int(env, 'UPSTREAM_POLL_MS', 10_000, 50, 3_600_000),
    relayCacheFile: env.RELAY_CACHE_FILE || undefined,
  }
}

/** TRUSTED_PROXIES: comma-separated addresses and CIDR ranges (`10.0.0.0/8`, `::1`, `fd00::/8`); the
 *  entries, validated. */
export function parseTrustedProxies(raw: string | undefined): string[] {
  const list = (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  for (const entry of list) {
    const [address, prefix, extra] = entry.split('/')
    const family = isIP(address ?? '')
    const bits = family === 4 ? 32 : 128
    const prefixOk = prefix === undefined || (/^[0-9]{1,3}$/.test(prefix) && Number(prefix) <= bits)
    if (family === 0 || extra !== undefined || !prefixOk) {
      throw new Error(`TRUSTED_PROXIES must be comma-separated IP addresses or CIDR ranges (10.0.0.0/8, ::1, fd00::/8), got "${entry}"`)
    }
  }
  return list
}
