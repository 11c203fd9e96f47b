// flagship-sdk/openfeature with the real OpenFeature SDKs: every reason and variant as the OFREP route
// answers them (same flags, same contexts, compared), FLAG_NOT_FOUND / TARGETING_KEY_MISSING /
// TYPE_MISMATCH / INVALID_CONTEXT answering the caller's default, and PROVIDER_CONFIGURATION_CHANGED on a
// change. The server SDK (promises) and the web SDK (synchronous, global context) both.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { OpenFeature, ProviderEvents, type Client, type EvaluationContext } from '@openfeature/server-sdk'
import { OpenFeature as WebOpenFeature, ProviderEvents as WebProviderEvents } from '@openfeature/web-sdk'
import { FlagshipProvider, FlagshipWebProvider } from '../../sdk/src/openfeature'
import { api, createToken, startServer, type TestServer } from '../helpers/server'
import { waitFor } from './helpers'

let srv: TestServer
let token: string
let client: Client
const DOMAIN = 'flagship-sdk-test'

const FLAGS = [
  { key: 'static', enabled: true, value: 'same' },
  { key: 'off', enabled: false, value: true },
  { key: 'off-string', enabled: false, value: 'x' },
  {
    key: 'targeted',
    enabled: true,
    value: 'default',
    targeting: {
      overrides: { vip: 'hand-picked' },
      rules: [
        { conditions: [{ property: 'plan', operator: 'equals', value: 'pro' }], value: 'pro' },
        { conditions: [{ property: 'country', operator: 'in', value: ['de'] }], value: 'de' },
      ],
    },
  },
  { key: 'split', enabled: true, value: true, targeting: { rollout: { percentage: 50, attribute: 'user_id' } } },
  { key: 'envs', enabled: true, value: 1, environments: { production: { enabled: true, value: 2 } } },
  { key: 'json', enabled: true, value: { limit: 5 } },
]

beforeAll(async () => {
  srv = await startServer()
  for (const f of FLAGS) expect((await api(srv, 'POST', '/api/v1/flags', { token: srv.adminToken, body: f })).status).toBe(201)
  token = await createToken(srv, ['read:flags'])
  await OpenFeature.setProviderAndWait(DOMAIN, new FlagshipProvider({ url: srv.url, token }))
  client = OpenFeature.getClient(DOMAIN)
})
afterAll(async () => {
  await OpenFeature.clearProviders()
  await WebOpenFeature.clearProviders()
  await srv?.stop()
})

const ofrep = async (key: string, context: EvaluationContext) =>
  (await api(srv, 'POST', `/ofrep/v1/evaluate/flags/${key}`, { token, body: { context } })).body

describe('FlagshipProvider with @openfeature/server-sdk', () => {
  const cases: [string, EvaluationContext, string, string][] = [
    ['static', {}, 'STATIC', 'default'],
    ['off', {}, 'DISABLED', 'off'],
    ['targeted', { targetingKey: 'vip' }, 'TARGETING_MATCH', 'override'],
    ['targeted', { targetingKey: 'u', plan: 'pro' }, 'TARGETING_MATCH', 'rule-1'],
    ['targeted', { targetingKey: 'u', country: 'de' }, 'TARGETING_MATCH', 'rule-2'],
    ['targeted', { targetingKey: 'u' }, 'DEFAULT', 'default'],
    ['envs', { environment: 'production' }, 'STATIC', 'default'],
  ]
  for (const [key, context, reason, variant] of cases) {
    test(`${key} ${JSON.stringify(context)}: ${reason} / ${variant}, as OFREP answers`, async () => {
      const server = await ofrep(key, context)
      const details = await client.getObjectDetails(key, null as never, context)
      const typed =
        typeof server.value === 'boolean'
          ? await client.getBooleanDetails(key, !server.value, context)
          : typeof server.value === 'string'
            ? await client.getStringDetails(key, 'fallback', context)
            : typeof server.value === 'number'
              ? await client.getNumberDetails(key, -1, context)
              : details
      expect({ value: typed.value, reason: typed.reason, variant: typed.variant }).toEqual({ value: server.value, reason, variant })
      expect({ reason: server.reason, variant: server.variant }).toEqual({ reason, variant })
      expect(typed.errorCode).toBeUndefined()
      expect(typed.flagMetadata).toEqual(server.metadata)
    })
  }

  test('SPLIT: inside and outside the rollout, as OFREP answers', async () => {
    const seen = new Set<string>()
    for (let i = 0; i < 20; i++) {
      const context = { targetingKey: `user-${i}` }
      const server = await ofrep('split', context)
      const details = await client.getBooleanDetails('split', !server.value, context)
      expect([details.value, details.reason, details.variant]).toEqual([server.value, 'SPLIT', server.variant])
      seen.add(details.variant!)
    }
    expect([...seen].sort()).toEqual(['off', 'rollout'])
  })

  test('errors answer the default: FLAG_NOT_FOUND, TARGETING_KEY_MISSING, TYPE_MISMATCH, INVALID_CONTEXT', async () => {
    const missing = await client.getBooleanDetails('nope', true)
    expect([missing.value, String(missing.errorCode), missing.reason]).toEqual([true, 'FLAG_NOT_FOUND', 'ERROR'])
    const noKey = await client.getBooleanDetails('split', true, {})
    expect([noKey.value, String(noKey.errorCode)]).toEqual([true, 'TARGETING_KEY_MISSING'])
    expect((await ofrep('split', {})).errorCode).toBe('TARGETING_KEY_MISSING')
    const wrongType = await client.getNumberDetails('static', 7)
    expect([wrongType.value, String(wrongType.errorCode)]).toEqual([7, 'TYPE_MISMATCH'])
    const badContext = await client.getStringDetails('static', 'd', { plan: 3 })
    expect([badContext.value, String(badContext.errorCode)]).toEqual(['d', 'INVALID_CONTEXT'])
    // A disabled non-boolean flag's off value is null, which typed getters cannot return: the default
    // stands in, with DISABLED and variant off saying why.
    const off = await client.getStringDetails('off-string', 'dflt')
    expect([off.value, off.reason, off.variant, off.errorCode]).toEqual(['dflt', 'DISABLED', 'off', undefined])
    const json = await client.getObjectValue('json', {})
    expect(json).toEqual({ limit: 5 })
  })

  test('PROVIDER_CONFIGURATION_CHANGED on a change, naming the flag; the new value is served', async () => {
    const changed: string[][] = []
    const handler = (e?: { flagsChanged?: string[] }) => void changed.push(e?.flagsChanged ?? [])
    const typedHandler = handler as Parameters<Client['addHandler']>[1]
    client.addHandler(ProviderEvents.ConfigurationChanged, typedHandler)
    try {
      expect((await api(srv, 'PUT', '/api/v1/flags/static', { token: srv.adminToken, body: { value: 'changed' } })).status).toBe(200)
      await waitFor(() => changed.length > 0, 1000, 'the event')
      expect(changed[0]).toEqual(['static'])
      expect(await client.getStringValue('static', '')).toBe('changed')
    } finally {
      client.removeHandler(ProviderEvents.ConfigurationChanged, typedHandler)
    }
  })
})

describe('FlagshipWebProvider with @openfeature/web-sdk', () => {
  test('synchronous evaluation with the global context; changes announced', async () => {
    await WebOpenFeature.setContext({ targetingKey: 'u', plan: 'pro' })
    await WebOpenFeature.setProviderAndWait(new FlagshipWebProvider({ url: srv.url, token }))
    const web = WebOpenFeature.getClient()
    const details = web.getStringDetails('targeted', 'fallback')
    expect([details.value, details.reason, details.variant]).toEqual(['pro', 'TARGETING_MATCH', 'rule-1'])
    expect(String(web.getBooleanDetails('nope', false).errorCode)).toBe('FLAG_NOT_FOUND')
    let events = 0
    web.addHandler(WebProviderEvents.ConfigurationChanged, () => void events++)
    expect((await api(srv, 'PUT', '/api/v1/flags/targeted', { token: srv.adminToken, body: { enabled: false } })).status).toBe(200)
    await waitFor(() => events > 0, 1000, 'the event')
    expect(web.getStringDetails('targeted', 'fallback')).toMatchObject({ value: 'fallback', reason: 'DISABLED', variant: 'off' })
  })
})
