// A real OpenID provider (the `oidc-provider` package) for the single sign-on tests. oidc-provider does not
// claim Bun support, so this file runs under Node as a child process (oidc-provider.ts starts it).
// Settings come as JSON in OIDC_TEST_PROVIDER: { clients: [{ client_id, client_secret, redirect_uris }],
// accounts: { <sub>: { email, email_verified, name, groups } }, conformIdTokenClaims }.
// Development interactions accept any login name as the subject: `/interaction/:uid` shows a login form
// (prompt=login, login=<sub>), then a consent form (prompt=consent).
// Accounts can be added or replaced while it runs: POST /test/accounts { <sub>: claims }.
import { createServer } from 'node:http'
import Provider from 'oidc-provider'

const settings = JSON.parse(process.env.OIDC_TEST_PROVIDER ?? '{}')
const accounts = new Map(Object.entries(settings.accounts ?? {}))

const server = createServer()
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
const { port } = server.address()
const issuer = `http://127.0.0.1:${port}`

const provider = new Provider(issuer, {
  clients: (settings.clients ?? []).map((c) => ({
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_post',
    ...c,
  })),
  pkce: { required: () => true },
  features: { devInteractions: { enabled: true } },
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
  // false: email and groups ride in the ID token too (as Keycloak and Entra ID do); true: only in userinfo
  // (as Okta does when an access token is issued as well), so the relying party must ask for them.
  conformIdTokenClaims: settings.conformIdTokenClaims ?? false,
  cookies: { keys: ['flagship-test-provider-cookie-key'] },
  async findAccount(_ctx, sub) {
    const claims = accounts.get(sub) ?? { email: `${sub}@example.com`, email_verified: true, name: sub }
    return { accountId: sub, claims: async () => ({ sub, ...claims }) }
  },
})
provider.proxy = false

// The tests' side door: change the accounts while the provider runs.
provider.use(async (ctx, next) => {
  if (ctx.method === 'POST' && ctx.path === '/test/accounts') {
    let text = ''
    for await (const chunk of ctx.req) text += chunk
    for (const [sub, claims] of Object.entries(JSON.parse(text))) accounts.set(sub, claims)
    ctx.status = 204
    return
  }
  await next()
})

server.on('request', provider.callback())
console.log(`oidc-provider listening ${issuer}`)
process.on('SIGTERM', () => server.close(() => process.exit(0)))
