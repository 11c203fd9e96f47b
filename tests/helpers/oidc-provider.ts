// Starts the real OpenID provider (oidc-provider.mjs, under Node) for the single sign-on suites, and signs
// in through its pages the way a browser does: following redirects with a cookie jar and posting its
// login and consent forms.
import { join } from 'node:path'
import { startProcess } from './child-process'
import { startServer, type TestServer } from './server'

export interface ProviderAccount {
  email?: string
  email_verified?: boolean
  name?: string
  groups?: string[]
}

export interface TestProvider {
  issuer: string
  clientId: string
  clientSecret: string
  /** adds or replaces accounts (login name = subject) */
  setAccounts(accounts: Record<string, ProviderAccount>): Promise<void>
  stop(): Promise<void>
}

export interface ProviderOptions {
  redirectUris: string[]
  accounts?: Record<string, ProviderAccount>
  /** true: email and groups only from userinfo, not in the ID token */
  conformIdTokenClaims?: boolean
}

export async function startOidcProvider(opts: ProviderOptions): Promise<TestProvider> {
  const clientId = 'flagship-test'
  const clientSecret = `secret-${crypto.randomUUID()}`
  const started = await startProcess('oidc-provider', ['node', join(import.meta.dir, 'oidc-provider.mjs')], {
    env: {
      ...process.env,
      OIDC_TEST_PROVIDER: JSON.stringify({
        clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: opts.redirectUris }],
        accounts: opts.accounts ?? {},
        conformIdTokenClaims: opts.conformIdTokenClaims ?? false,
      }),
    },
    ready: /oidc-provider listening (\S+)/,
    timeoutMs: 30_000,
  })
  const issuer = started.match[1]!
  return {
    issuer,
    clientId,
    clientSecret,
    async setAccounts(accounts) {
      const res = await fetch(`${issuer}/test/accounts`, { method: 'POST', body: JSON.stringify(accounts) })
      if (res.status !== 204) throw new Error(`setting provider accounts failed: ${res.status}`)
    },
    stop: () => started.stop(3000),
  }
}

/** Cookies per host:port, as a browser keeps them (enough for these flows: no paths, no expiry). */
export class CookieJar {
  private readonly jars = new Map<string, Map<string, string>>()
  store(url: string, res: Response): void {
    const host = new URL(url).host
    const jar = this.jars.get(host) ?? new Map<string, string>()
    this.jars.set(host, jar)
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';')
      const eq = pair.indexOf('=')
      const name = pair.slice(0, eq).trim()
      const value = pair.slice(eq + 1).trim()
      const expired = attrs.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === ''
      if (expired) jar.delete(name)
      else jar.set(name, value)
    }
  }
  header(url: string): string | undefined {
    const jar = this.jars.get(new URL(url).host)
    if (!jar?.size) return undefined
    return [...jar].map(([k, v]) => `${k}=${v}`).join('; ')
  }
  get(url: string, name: string): string | undefined {
    return this.jars.get(new URL(url).host)?.get(name)
  }
  set(url: string, name: string, value: string): void {
    const host = new URL(url).host
    const jar = this.jars.get(host) ?? new Map<string, string>()
    this.jars.set(host, jar)
    jar.set(name, value)
  }
  delete(url: string, name: string): void {
    this.jars.get(new URL(url).host)?.delete(name)
  }
}

/** One request as a browser makes it: the jar's cookies go along, Set-Cookie comes back into it. */
export async function browserRequest(
  jar: CookieJar,
  url: string,
  init: { method?: string; form?: Record<string, string> } = {},
): Promise<Response> {
  const headers: Record<string, string> = {}
  const cookie = jar.header(url)
  if (cookie) headers.cookie = cookie
  let body: string | undefined
  if (init.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded'
    body = new URLSearchParams(init.form).toString()
  }
  const res = await fetch(url, { method: init.method ?? (body ? 'POST' : 'GET'), headers, body, redirect: 'manual' })
  jar.store(url, res)
  return res
}

const formAction = (html: string, base: string): string => {
  const m = /<form[^>]*action="([^"]+)"/.exec(html)
  if (!m) throw new Error(`no form on the provider's page:\n${html.slice(0, 500)}`)
  return new URL(m[1].replace(/&amp;/g, '&'), base).href
}

/**
 * Signs in at the provider from its authorization URL: its login page (any login name is the subject),
 * then its consent page. Returns the URL the provider sends the browser back to (our callback with
 * code, state and iss), without following it.
 */
export async function signInAtProvider(
  jar: CookieJar,
  authorizationUrl: string,
  login: string,
  redirectUriPrefix: string,
): Promise<string> {
  let url = authorizationUrl
  let form: Record<string, string> | undefined
  for (let hop = 0; hop < 20; hop++) {
    const res = await browserRequest(jar, url, form ? { form } : {})
    form = undefined
    if (res.status >= 300 && res.status < 400) {
      const next = new URL(res.headers.get('location')!, url).href
      if (next.startsWith(redirectUriPrefix)) return next
      url = next
      await res.body?.cancel()
      continue
    }
    const html = await res.text()
    if (res.status !== 200) throw new Error(`provider answered ${res.status} at ${url}:\n${html.slice(0, 500)}`)
    if (html.includes('name="prompt" value="login"')) form = { prompt: 'login', login, password: 'any' }
    else if (html.includes('name="prompt" value="consent"')) form = { prompt: 'consent' }
    else throw new Error(`unexpected provider page at ${url}:\n${html.slice(0, 500)}`)
    url = formAction(html, url)
  }
  throw new Error('too many redirects at the provider')
}

/** A port free right now (the service needs its PUBLIC_URL, and so its port, before it starts). */
export function freePort(): number {
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
  const port = server.port!
  server.stop(true)
  return port
}

export interface SsoResult {
  /** where the service finally sent the browser (its Location) */
  location: string
  status: number
  /** the session cookie (name=value) the callback set, if any */
  session?: string
}

/**
 * Single sign-on through the service as a browser does it: GET /auth/oidc/start, the provider's pages,
 * then the callback. `tamperAuthorization` changes the provider URL first (hostile tests);
 * `beforeCallback` may change the callback URL or the jar.
 */
export async function ssoSignIn(
  service: string,
  login: string,
  opts: {
    jar?: CookieJar
    returnTo?: string
    invitation?: string
    tamperAuthorization?: (u: URL) => void
    beforeCallback?: (u: URL, jar: CookieJar) => void
  } = {},
): Promise<SsoResult & { callback: string; jar: CookieJar }> {
  const jar = opts.jar ?? new CookieJar()
  const q = new URLSearchParams()
  if (opts.returnTo !== undefined) q.set('return_to', opts.returnTo)
  if (opts.invitation !== undefined) q.set('invitation', opts.invitation)
  const start = await browserRequest(jar, `${service}/api/v1/auth/oidc/start?${q}`)
  if (start.status !== 302) throw new Error(`start answered ${start.status}: ${await start.text()}`)
  const authorization = new URL(start.headers.get('location')!, service)
  if (authorization.origin === new URL(service).origin)
    return { location: authorization.pathname + authorization.search, status: 302, callback: '', jar }
  opts.tamperAuthorization?.(authorization)
  const callback = new URL(await signInAtProvider(jar, authorization.href, login, `${service}/api/v1/auth/oidc/callback`))
  opts.beforeCallback?.(callback, jar)
  const done = await browserRequest(jar, callback.href)
  const session = done.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .find((c) => /^(__Host-)?flagship_session=./.test(c))
  return { location: done.headers.get('location') ?? '', status: done.status, session, callback: callback.href, jar }
}

/** A provider and a service that trusts it (the service's port is chosen first: PUBLIC_URL needs it). */
export async function startSsoPair(
  env: Record<string, string> = {},
  accounts: Record<string, ProviderAccount> = {},
): Promise<{ srv: TestServer; provider: TestProvider }> {
  const port = freePort()
  const publicUrl = `http://127.0.0.1:${port}`
  const provider = await startOidcProvider({ redirectUris: [`${publicUrl}/api/v1/auth/oidc/callback`], accounts })
  const srv = await startServer({
    env: {
      PORT: String(port),
      PUBLIC_URL: publicUrl,
      OIDC_ISSUER: provider.issuer,
      OIDC_CLIENT_ID: provider.clientId,
      OIDC_CLIENT_SECRET: provider.clientSecret,
      OIDC_SCOPES: 'openid email profile groups',
      ...env,
    },
  })
  return { srv, provider }
}
