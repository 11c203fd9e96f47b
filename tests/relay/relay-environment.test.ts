// A relay key bound to one environment (the token's `environment`, which client and environment keys also
// carry): its relay loads only that environment's overrides and serves only keys bound to the same
// environment; verification carries each key's environment and permissions, so the rules that read them
// apply at the relay as at the origin. (POST /tokens gains `environment` with client keys; here the binding
// is written straight into the origin's SQLite file, which the origin re-reads at its next reconcile.)
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { api, createToken, startServer, type TestServer } from '../helpers/server'
import { until } from '../helpers/until'

const sha256 = (s: string) => new Bun.CryptoHasher('sha256').update(s).digest('hex')

let origin: TestServer
let relay: TestServer
let relayKey: string
let unbound: string
let bound: string

beforeAll(async () => {
  origin = await startServer({ env: { RECONCILE_INTERVAL_MS: '200' } })
  relayKey = await createToken(origin, ['relay'])
  unbound = await createToken(origin, ['read:flags'])
  bound = await createToken(origin, ['read:flags'])
  await api(origin, 'POST', '/api/v1/flags', {
    token: origin.adminToken,
    body: {
      key: 'f',
      enabled: true,
      value: 'base',
      environments: { production: { enabled: true, value: 'prod' }, staging: { enabled: true, value: 'stage' } },
    },
  })
  const db = new Database(origin.dbPath)
  db.run('UPDATE tokens SET environment = ? WHERE hash IN (?, ?)', ['production', sha256(relayKey), sha256(bound)])
  db.close()
  await until(
    'origin re-read the tokens',
    async () =>
      (await api(origin, 'POST', '/api/v1/relay/verify', { token: relayKey, body: { hashes: [sha256(bound)] } })).body?.environment ===
      'production',
    10_000,
  )
  relay = await startServer({ env: { UPSTREAM_URL: origin.url, UPSTREAM_TOKEN: relayKey, UPSTREAM_POLL_MS: '200' } })
  await until('relay ready', async () => (await api(relay, 'GET', '/health/ready')).status === 200, 20_000)
}, 60_000)
afterAll(async () => {
  await relay?.stop()
  await origin?.stop()
})

test("verify answers each key's environment, and refuses keys outside the relay key's environment", async () => {
  const res = await api(origin, 'POST', '/api/v1/relay/verify', { token: relayKey, body: { hashes: [sha256(bound), sha256(unbound)] } })
  expect(res.body.environment).toBe('production')
  expect(res.body.keys).toEqual([
    expect.objectContaining({ hash: sha256(bound), valid: true, environment: 'production', permissions: ['read:flags'] }),
    { hash: sha256(unbound), valid: false },
  ])
})

test("the relay serves keys of its environment only, with that environment's data only", async () => {
  expect((await api(relay, 'GET', '/api/v1/flags/f', { token: unbound })).status).toBe(401)
  const production = encodeURIComponent(JSON.stringify({ environment: 'production' }))
  const answer = await api(relay, 'GET', `/api/v1/flags/f?context=${production}`, { token: bound })
  expect(answer.status).toBe(200)
  expect(answer.body.value).toBe('prod')
  expect((await api(origin, 'GET', `/api/v1/flags/f?context=${production}`, { token: bound })).body).toEqual(answer.body)
  const defs = await api(relay, 'GET', '/api/v1/definitions', { token: bound })
  expect(defs.body.flags[0].environments).toEqual({ production: { enabled: true, value: 'prod' } })
})
