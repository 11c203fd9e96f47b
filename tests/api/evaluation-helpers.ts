// What the evaluation suites (evaluation.test.ts, evaluation-bulk.test.ts) share: creating flags and
// segments through the API and evaluating them over HTTP, against the suite's own server.
import { api, type ApiResponse, type TestServer } from '../helpers/server'

export type Ctx = Record<string, unknown>

export function evaluationHelpers(server: () => TestServer) {
  const admin = () => server().adminToken
  const ok = (res: ApiResponse, status = 201): ApiResponse => {
    if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${res.text}`)
    return res
  }
  const createFlag = async (body: Record<string, unknown>) => ok(await api(server(), 'POST', '/api/v1/flags', { token: admin(), body }))
  const updateFlag = async (key: string, body: Record<string, unknown>) =>
    ok(await api(server(), 'PUT', `/api/v1/flags/${key}`, { token: admin(), body }), 200)
  const createSegment = async (key: string, conditions: unknown[]) =>
    ok(await api(server(), 'POST', '/api/v1/segments', { token: admin(), body: { key, conditions } }))
  const flagPath = (key: string, ctx?: Ctx) =>
    `/api/v1/flags/${encodeURIComponent(key)}${ctx === undefined ? '' : `?context=${encodeURIComponent(JSON.stringify(ctx))}`}`

  /** GET /api/v1/flags/:key for a context; the whole response. */
  const evaluateRaw = (key: string, ctx?: Ctx, opts: { token?: string; headers?: Record<string, string> } = {}) =>
    api(server(), 'GET', flagPath(key, ctx), { token: opts.token ?? admin(), headers: opts.headers })

  /** GET /api/v1/flags/:key for a context; the result body (fails loudly on a non-200). */
  async function evaluate(key: string, ctx?: Ctx): Promise<{ value: unknown; type: string; reason: string }> {
    return ok(await evaluateRaw(key, ctx), 200).body
  }

  const bulk = (body: unknown, token = admin()) => api(server(), 'POST', '/api/v1/evaluate', { token, body })

  /** A flag whose single rule is one condition: 'hit' when it holds, else the default 'miss'. */
  const oneRule = (key: string, condition: Record<string, unknown>) =>
    createFlag({ key, enabled: true, value: 'miss', targeting: { rules: [{ conditions: [condition], value: 'hit' }] } })

  return { ok, createFlag, updateFlag, createSegment, flagPath, evaluateRaw, evaluate, bulk, oneRule }
}
