// The baseline of bench/run.ts: a bare Bun.serve answering every request with one fixed JSON body
// (BENCH_BODY, the evaluation response of the real server, so both send the same number of body bytes).
// Prints `{"msg":"listening","port":N}` once it listens, like the real server's log line.
const body = process.env.BENCH_BODY ?? '{"value":true,"type":"boolean","reason":"default"}'
const headers = { 'content-type': 'application/json; charset=utf-8' }

const server = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  fetch: () => new Response(body, { headers }),
})
console.log(JSON.stringify({ msg: 'listening', port: server.port }))
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    server.stop(true)
    process.exit(0)
  })
}
