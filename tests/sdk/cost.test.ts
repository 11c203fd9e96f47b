// The SDK shares the engine, so it shares its bounds (docs/behaviour.md §8, "Cost and usage"): a context too
// costly to evaluate gets the caller's fallback (reason `error`; OpenFeature: GENERAL), never a hang, and
// prerequisites are evaluated once per evaluation however they are wired.
import { afterAll, describe, expect, test } from 'bun:test'
import { ErrorCode, OpenFeature } from '@openfeature/server-sdk'
import { createClient, type Definitions } from '../../sdk/src'
import { FlagshipProvider } from '../../sdk/src/openfeature'
import * as compile from '../../server/engine/compile'

const lattice = Array.from({ length: 11 }, (_, l) =>
  Array.from({ length: 4 }, (_, w) => ({
    key: `l${l}-${w}`,
    enabled: true,
    value: true,
    prerequisites: l === 0 ? [] : [0, 1, 2, 3].map((v) => ({ key: `l${l - 1}-${v}`, value: true })),
  })),
).flat()
const doc: Definitions = {
  version: 1,
  environments: [],
  configs: [],
  segments: [],
  flags: [
    {
      key: 'worst',
      enabled: true,
      value: false,
      targeting: {
        rules: Array.from({ length: 60 }, () => ({
          conditions: [{ property: 'text', operator: 'matches' as const, value: '(?:a?){50}a{50}b' }],
          value: true,
        })),
      },
    },
    ...lattice,
  ],
}
const clients: { close(): unknown }[] = []
afterAll(async () => {
  for (const c of clients) await c.close()
  await OpenFeature.close()
})

describe('flagship-sdk: bounded evaluation cost', () => {
  test('a context too costly to evaluate answers the fallback with reason error; an ordinary one is evaluated', async () => {
    const client = createClient({ bootstrap: doc, usage: false })
    clients.push(client)
    await client.ready()
    expect(client.evaluate('worst', { custom: { text: 'a'.repeat(24_000) } }, 'fallback')).toEqual({
      value: 'fallback',
      type: 'string',
      reason: 'error',
    })
    expect(client.evaluate('worst', { custom: { text: `${'a'.repeat(60)}b` } })).toEqual({
      value: true,
      type: 'boolean',
      reason: 'targeting',
    })
  })

  test('a lattice of prerequisites: each evaluated once per evaluation', async () => {
    const client = createClient({ bootstrap: doc, usage: false })
    clients.push(client)
    await client.ready()
    expect(client.evaluate('l10-0', {})).toEqual({ value: true, type: 'boolean', reason: 'default' })
    expect(compile.prerequisiteEvaluations).toBe(40)
  })

  test('the OpenFeature provider answers GENERAL with the default value', async () => {
    await OpenFeature.setProviderAndWait('cost', new FlagshipProvider({ bootstrap: doc, usage: false }))
    const details = await OpenFeature.getClient('cost').getBooleanDetails('worst', true, { text: 'a'.repeat(24_000) })
    expect({ value: details.value, errorCode: details.errorCode }).toEqual({ value: true, errorCode: ErrorCode.GENERAL })
    expect((await OpenFeature.getClient('cost').getBooleanDetails('worst', false, { text: `${'a'.repeat(60)}b` })).value).toBe(true)
  })
})
