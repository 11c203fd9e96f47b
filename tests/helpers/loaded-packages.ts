// Run as a child process by tests/unit/lean-start.test.ts (which sets DATABASE_URL to a SQLite file): starts
// the service (no Redis) in this process, prints which of the packages it should load only on first use are
// loaded, scrapes /metrics once, and prints them again. Bun's require.cache lists ES modules too.
export {}

const WATCHED = ['prom-client', 'ioredis', '@stdlib/', 'postgres', 'openid-client']
const loaded = () => WATCHED.filter((p) => Object.keys(require.cache).some((path) => path.includes(`/node_modules/${p}`)))

Object.assign(process.env, {
  PORT: '0',
  HOST: '127.0.0.1',
  BOOTSTRAP_TOKEN: 'ff_defa_AAAAAAAAAAAAAAAAAAAA',
  REDIS_URL: '',
})
const { loadSettings } = await import('../../server/settings')
const { startService } = await import('../../server/index')
const service = await startService(loadSettings())
console.log(JSON.stringify({ phase: 'started', loaded: loaded() }))
const scrape = await fetch(`http://127.0.0.1:${service.port}/metrics`)
await scrape.text()
console.log(JSON.stringify({ phase: 'scraped', status: scrape.status, loaded: loaded() }))
await service.stop()
process.exit(0)
