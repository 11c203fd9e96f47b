// Flags as code at scale (docs/as-code.md): a 10,000-flag document (JSON, within the 10 MiB import limit)
// planned and then applied (with If-Match on the plan id) on a fresh real server, timed end to end over
// HTTP; then planned again (all unchanged). One run each: these are seconds-long operations.
import { call, cleanup, startFlagServer, watchdog } from './lib'

export interface AsCodeFigures {
  flags: number
  bytes: number
  planMs: number
  applyMs: number
  replanMs: number
}

export function benchDocument(n: number) {
  return {
    flagship: 1,
    flags: Array.from({ length: n }, (_, i) => ({
      key: `code-${String(i).padStart(5, '0')}`,
      enabled: i % 2 === 0,
      value: i % 3 === 0,
      targeting: {
        rules: [{ conditions: [{ property: 'plan', operator: 'in', value: ['pro', 'enterprise'] }], value: true }],
        rollout: { percentage: i % 100, attribute: 'user_id' },
      },
      environments: { production: { enabled: false } },
      tags: ['bulk'],
      description: `flag number ${i}`,
    })),
  }
}

export async function benchAsCode(n = 10_000, env: Record<string, string> = {}): Promise<AsCodeFigures> {
  const srv = await startFlagServer(`server (import of ${n} flags)`, env)
  try {
    const doc = benchDocument(n)
    const bytes = Buffer.byteLength(JSON.stringify(doc))
    const timed = async (path: string, headers: Record<string, string> = {}) => {
      const started = performance.now()
      const res = await fetch(srv.url + path, {
        method: 'POST',
        headers: { authorization: `Bearer ${srv.token}`, 'content-type': 'application/json', ...headers },
        body: JSON.stringify(doc),
      })
      const text = await res.text()
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${text.slice(0, 300)}`)
      return { ms: performance.now() - started, body: JSON.parse(text) as { plan_id: string; summary: Record<string, number> } }
    }
    const plan = await timed('/api/v1/import?mode=plan')
    if (plan.body.summary.create !== n) throw new Error(`plan: expected ${n} creates, got ${JSON.stringify(plan.body.summary)}`)
    const apply = await timed('/api/v1/import?mode=apply', { 'if-match': `"${plan.body.plan_id}"` })
    const replan = await timed('/api/v1/import?mode=plan')
    if (replan.body.summary.unchanged !== n) throw new Error(`re-plan: expected ${n} unchanged, got ${JSON.stringify(replan.body.summary)}`)
    const listed = JSON.parse((await call(srv, 'GET', '/api/v1/flags?limit=1')).text).total
    if (listed !== n) throw new Error(`expected ${n} flags after apply, the server lists ${listed}`)
    return { flags: n, bytes, planMs: plan.ms, applyMs: apply.ms, replanMs: replan.ms }
  } finally {
    await srv.stop()
  }
}

// Alone: `bun bench/as-code.ts` (BENCH_DATABASE_URL=postgres://… measures PostgreSQL; the database must be empty).
if (import.meta.main) {
  try {
    console.log(
      await benchAsCode(
        Number(process.env.BENCH_FLAGS_LARGE ?? 10_000),
        process.env.BENCH_DATABASE_URL ? { DATABASE_URL: process.env.BENCH_DATABASE_URL } : {},
      ),
    )
  } finally {
    clearTimeout(watchdog)
    cleanup()
    process.exit(process.exitCode ?? 0)
  }
}
