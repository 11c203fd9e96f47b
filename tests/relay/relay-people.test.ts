// A personal token at a relay: valid while its owner belongs to the project; when the owner is removed, the
// origin tells the relays following the project (`revoke`), and the relay refuses the token within 5 s.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { api, createToken, startServer, type TestServer } from '../helpers/server'
import { startWithPeople, type People } from '../helpers/people'
import { until } from '../helpers/until'

let people: People
let relay: TestServer

beforeAll(async () => {
  people = await startWithPeople([{ email: 'dev@example.com', role: 'editor', token: ['read:flags'] }])
  await api(people.srv, 'POST', '/api/v1/flags', { token: people.srv.adminToken, body: { key: 'f', enabled: true, value: 1 } })
  const relayKey = await createToken(people.srv, ['relay'])
  relay = await startServer({ env: { UPSTREAM_URL: people.srv.url, UPSTREAM_TOKEN: relayKey, UPSTREAM_POLL_MS: '200' } })
  await until('relay connected', async () => (await api(relay, 'GET', '/health')).body.upstream === 'connected', 20_000)
}, 60_000)
afterAll(async () => {
  await relay?.stop()
  await people?.stop()
})

test('removing the owner from the project revokes their personal token at the relay within 5 s', async () => {
  const personal = people.tokens['dev@example.com']!
  expect((await api(relay, 'GET', '/api/v1/flags/f', { token: personal })).status).toBe(200)
  const removed = await api(people.srv, 'DELETE', `/api/v1/project/members/${people.ids['dev@example.com']}`, {
    token: people.srv.adminToken,
  })
  expect(removed.status).toBe(200)
  const at = Date.now()
  await until('refused at the relay', async () => (await api(relay, 'GET', '/api/v1/flags/f', { token: personal })).status === 401, 5000)
  expect(Date.now() - at).toBeLessThan(5000)
  expect((await api(people.srv, 'GET', '/api/v1/flags/f', { token: personal })).status).toBe(401)
})
