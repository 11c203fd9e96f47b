// Runs once before the test suites: builds the console if it is missing or stale, so that the many
// servers the suites start never race each other to build it; and removes the suites' temporary folders
// after the last one.
import { afterAll } from 'bun:test'
import { ensureConsoleBuilt } from '../../server/http/console'
import { removeTempDirs } from './temp'

afterAll(removeTempDirs)

await ensureConsoleBuilt((msg) => console.log(`[preload] ${msg}`))
