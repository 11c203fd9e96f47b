// Single sign-on settings (teams.md §5), read from the environment once at start. A bad value stops the
// service with a message naming the variable, so a mistyped issuer or role map never half-works.
import { parseRoleMap, type RoleMap } from './oidc-role-map'

export interface OidcSettings {
  /** the id the console and GET /auth/methods use for this provider */
  id: 'oidc'
  issuer: URL
  clientId: string
  clientSecret: string
  /** the sign-in button's label */
  name: string
  scopes: string
  /** lower-cased email domains allowed to sign in; empty: any */
  allowedDomains: string[]
  autoCreate: boolean
  groupsClaim: string
  roleMap: RoleMap
  /** plain http to a host other than localhost: only with OIDC_ALLOW_INSECURE=true */
  allowInsecure: boolean
  /** whether plain-http requests to the issuer are allowed (localhost issuers and OIDC_ALLOW_INSECURE) */
  insecureRequests: boolean
  redirectUri: string
  /** the service's own origin (the console's sign-in page and return_to paths are under it) */
  publicUrl: string
}

const OIDC_VARS = [
  'OIDC_CLIENT_ID',
  'OIDC_CLIENT_SECRET',
  'OIDC_NAME',
  'OIDC_SCOPES',
  'OIDC_ALLOWED_DOMAINS',
  'OIDC_AUTO_CREATE',
  'OIDC_GROUPS_CLAIM',
  'OIDC_ROLE_MAP',
  'OIDC_ALLOW_INSECURE',
]
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]'])
const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/

function bool(env: Record<string, string | undefined>, name: string): boolean {
  const raw = (env[name] ?? '').trim().toLowerCase()
  if (['', '0', 'false', 'no', 'off'].includes(raw)) return false
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true
  throw new Error(`${name} must be true or false, got "${env[name]}"`)
}

function text(env: Record<string, string | undefined>, name: string, fallback: string | undefined, max: number): string {
  const raw = env[name]?.trim() || fallback
  if (raw === undefined) throw new Error(`${name} is required when OIDC_ISSUER is set`)
  if (raw.length > max || /[\x00-\x1f\x7f]/.test(raw))
    throw new Error(`${name} must be at most ${max} characters without control characters`)
  return raw
}

/** The OIDC settings, or undefined when OIDC_ISSUER is unset (single sign-on off). */
export function loadOidcSettings(env: Record<string, string | undefined>, publicUrl: string | undefined): OidcSettings | undefined {
  const rawIssuer = env.OIDC_ISSUER?.trim()
  if (!rawIssuer) {
    const stray = OIDC_VARS.find((v) => env[v]?.trim())
    if (stray) throw new Error(`${stray} is set but OIDC_ISSUER is not: set OIDC_ISSUER to turn single sign-on on, or unset ${stray}`)
    return undefined
  }
  let issuer: URL
  try {
    issuer = new URL(rawIssuer)
  } catch {
    throw new Error(`OIDC_ISSUER must be the provider's issuer URL, like https://login.example.com/realms/main, got "${rawIssuer}"`)
  }
  if ((issuer.protocol !== 'https:' && issuer.protocol !== 'http:') || issuer.search || issuer.hash || issuer.username || issuer.password) {
    throw new Error(`OIDC_ISSUER must be an https URL without query, fragment or credentials, got "${rawIssuer}"`)
  }
  const allowInsecure = bool(env, 'OIDC_ALLOW_INSECURE')
  const local = LOCAL_HOSTS.has(issuer.hostname)
  if (issuer.protocol === 'http:' && !local && !allowInsecure) {
    throw new Error(
      `OIDC_ISSUER must use https (plain http only for localhost or 127.0.0.1, or with OIDC_ALLOW_INSECURE=true), got "${rawIssuer}"`,
    )
  }
  if (!publicUrl)
    throw new Error('PUBLIC_URL is required when OIDC_ISSUER is set (the redirect URI is PUBLIC_URL/api/v1/auth/oidc/callback)')

  const scopes = text(env, 'OIDC_SCOPES', 'openid email profile', 1000).split(/\s+/).filter(Boolean)
  if (!scopes.includes('openid')) throw new Error(`OIDC_SCOPES must include openid, got "${env.OIDC_SCOPES}"`)
  if (scopes.some((s) => !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(s)))
    throw new Error(`OIDC_SCOPES must be scope names separated by spaces, got "${env.OIDC_SCOPES}"`)

  const allowedDomains = (env.OIDC_ALLOWED_DOMAINS ?? '')
    .split(',')
    .map((d) => d.trim().toLowerCase())
    .filter(Boolean)
  for (const d of allowedDomains) {
    if (!DOMAIN.test(d)) throw new Error(`OIDC_ALLOWED_DOMAINS must be a comma-separated list of domains like example.com, got "${d}"`)
  }
  const groupsClaim = text(env, 'OIDC_GROUPS_CLAIM', 'groups', 128)

  let roleMap: RoleMap = {}
  const rawMap = env.OIDC_ROLE_MAP?.trim()
  if (rawMap) {
    let parsed: unknown
    try {
      parsed = JSON.parse(rawMap)
    } catch {
      throw new Error(
        'OIDC_ROLE_MAP must be JSON: { "<group>": { "instance": "admin" } or { "projects": { "<slug>": { "role": "editor" } } } }',
      )
    }
    roleMap = parseRoleMap(parsed, 'OIDC_ROLE_MAP')
  }

  return {
    id: 'oidc',
    issuer,
    clientId: text(env, 'OIDC_CLIENT_ID', undefined, 255),
    clientSecret: text(env, 'OIDC_CLIENT_SECRET', undefined, 1024),
    name: text(env, 'OIDC_NAME', 'Single sign-on', 64),
    scopes: scopes.join(' '),
    allowedDomains,
    autoCreate: bool(env, 'OIDC_AUTO_CREATE'),
    groupsClaim,
    roleMap,
    allowInsecure,
    insecureRequests: issuer.protocol === 'http:',
    redirectUri: `${publicUrl}/api/v1/auth/oidc/callback`,
    publicUrl,
  }
}
