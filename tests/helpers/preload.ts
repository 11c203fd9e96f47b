// Runs once before the test suites: builds the console if it is missing or stale, so that the many
// servers the suites start never race each other to build it.
import { ensureConsoleBuilt } from '../../server/http/console'

await ensureConsoleBuilt((msg) => console.log(`[preload] ${msg}`))
