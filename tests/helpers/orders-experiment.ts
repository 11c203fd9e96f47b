// A small running experiment the events suites share: flag `f` split 50/50 between `a` and `b` on `user_id`,
// metric `orders` (the count of `order` events per unit), experiment `x` in production, started, with u1
// exposed to `a` and u2 to `b` an hour ago.
import { api, type TestServer } from './server'

export async function setUpOrdersExperiment(server: TestServer): Promise<void> {
  const c = async (method: string, path: string, body?: unknown) => {
    const r = await api(server, method, path, { token: server.adminToken, body })
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`)
  }
  const split = [
    { variant: 'a', weight: 50 },
    { variant: 'b', weight: 50 },
  ]
  await c('POST', '/api/v1/flags', {
    key: 'f',
    enabled: true,
    variants: { a: 1, b: 2 },
    default_variant: 'a',
    targeting: { rollout: { attribute: 'user_id', distribution: split } },
  })
  await c('POST', '/api/v1/metrics', { key: 'orders', name: 'Orders', kind: 'mean', event: 'order' })
  await c('POST', '/api/v1/experiments', {
    key: 'x',
    name: 'X',
    flag: 'f',
    environment: 'production',
    goal_metrics: ['orders'],
    cuped: false,
  })
  await c('POST', '/api/v1/experiments/x/start')
  const at = new Date(Date.now() - 3_600_000).toISOString()
  const exposure = (user_id: string, variant: string) => ({
    type: 'exposure',
    flag: 'f',
    variant,
    context: { user_id, environment: 'production' },
    timestamp: at,
  })
  await c('POST', '/api/v1/events', { events: [exposure('u1', 'a'), exposure('u2', 'b')] })
}

/** The `orders` metric's sum per variant (fresh results). */
export async function ordersByVariant(server: TestServer): Promise<Record<string, number>> {
  const r = await api(server, 'GET', '/api/v1/experiments/x/results?refresh=true', { token: server.adminToken })
  if (r.status !== 200) throw new Error(`results: ${r.status} ${r.text}`)
  return Object.fromEntries(r.body.metrics[0].variants.map((v: { variant: string; sum: number }) => [v.variant, v.sum]))
}
