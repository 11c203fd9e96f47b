// Data written before own rules per environment answers byte for byte as before (docs/behaviour.md §4):
// the corpus recorded from main (tests/fixtures/answer-corpus.<store>.json) against this build, on the suite's store.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { join } from 'node:path'
import { collectAnswers, seedCorpusProject, type Answer } from '../helpers/answer-corpus'
import { startServer, TEST_STORE, type TestServer } from '../helpers/server'

let server: TestServer
beforeAll(async () => {
  server = await startServer()
  await seedCorpusProject(server)
})
afterAll(() => server?.stop())

test('every evaluation surface answers the recorded bytes', async () => {
  const recorded = (await Bun.file(join(import.meta.dir, '..', 'fixtures', `answer-corpus.${TEST_STORE}.json`)).json()) as Answer[]
  const now = await collectAnswers(server)
  expect(now.length).toBe(recorded.length)
  expect(recorded.length).toBeGreaterThan(240)
  for (let i = 0; i < recorded.length; i++) {
    expect({ surface: now[i]!.surface, status: now[i]!.status, body: now[i]!.body }).toEqual(recorded[i]!)
  }
}, 120_000)
