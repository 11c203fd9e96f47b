// The baseline of bench/run.ts: a bare Bun.serve answering every request with one fixed JSON body
// (BENCH_BODY, the evaluation response of the real server, so both send the same number of body bytes).
// With BENCH_FLOOR=1 it also does the least any evaluation answer must do under the spec, and nothing
// else (floor-handler.ts). Its ratio to the bare server is the ceiling of (b)/(a) on the machine.
// With BENCH_HEADERS (a JSON object: the headers the real server sent with BENCH_BODY) it answers every
// request with exactly that response, headers and body, prepared once: the floor the evaluation figure is
// measured against (the service's own answer, with none of its work). A POST to it reads its body before
// answering, as any handler of a JSON body must: the ceiling of OFREP's (o)/(b).
// Prints `{"msg":"listening","port":N}` once it listens, like the real server's log line.
import { floorHandler } from './floor-handler'

const body = process.env.BENCH_BODY ?? '{"value":true,"type":"boolean","reason":"default"}'
const token = process.env.BENCH_TOKEN ?? ''
const headers = { 'content-type': 'application/json; charset=utf-8' }
const floor = floorHandler(body, token)

const sameHeaders = process.env.BENCH_HEADERS ? new Headers(JSON.parse(process.env.BENCH_HEADERS) as Record<string, string>) : undefined
const same = (request: Request): Response | Promise<Response> =>
  request.method === 'POST'
    ? request.bytes().then(() => new Response(body, { headers: sameHeaders }))
    : new Response(body, { headers: sameHeaders })

const server = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  fetch: sameHeaders ? same : process.env.BENCH_FLOOR === '1' ? floor : () => new Response(body, { headers }),
})
console.log(JSON.stringify({ msg: 'listening', port: server.port }))
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    server.stop(true)
    process.exit(0)
  })
}
