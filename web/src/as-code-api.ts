// The console's calls for flags as code (docs/as-code.md): export, import plan/apply (documents travel as
// text: YAML or JSON), environment comparison and promotion.
import { ApiError, projectStore, request, tokenStore } from './api'

export interface PlanChange {
  resource_type: 'segment' | 'flag' | 'config'
  key: string
  action: 'create' | 'update' | 'delete'
  current_version: number | null
  diff: { op: string; path: string; value?: unknown }[]
}
export interface PlanIssue {
  path: string
  line?: number
  message: string
}
export interface ImportPlan {
  plan_id: string
  summary: { create: number; update: number; delete: number; unchanged: number }
  changes: PlanChange[]
  errors: PlanIssue[]
  change_set?: string | null
}
export type CompareStatus = 'identical' | 'different' | 'only_a' | 'only_b'
export interface CompareRow {
  key: string
  status: CompareStatus
  diff?: { op: string; path: string; value?: unknown }[]
}
/** What the propose modes answer: the plan and the change request opened (null: nothing to change). */
export type Proposed = ImportPlan & { change_request: { id: string } | null }
/** An apply refused because a protected environment is affected: the console offers Propose instead. */
export const needsRequest = (error: unknown) => error instanceof ApiError && error.code === 'CHANGE_REQUEST_REQUIRED'
export interface Comparison {
  a: string
  b: string
  flags?: CompareRow[]
  configs?: CompareRow[]
}

/** JSON when the text looks like a JSON object, else YAML. */
export const mediaTypeOf = (text: string) => (/^\s*\{/.test(text) ? 'application/json' : 'application/yaml')

async function sendText<T>(
  method: string,
  path: string,
  body: string | undefined,
  headers: Record<string, string>,
): Promise<{ data: T; text: string }> {
  const token = tokenStore.get()
  let res: Response
  try {
    // A person's session names the project and says the write comes from the console (CSRF), as api.ts does.
    const project = token ? null : projectStore.get()
    const person = token ? {} : { ...(project && { 'flagship-project': project }), ...(method !== 'GET' && { 'x-flagship-request': '1' }) }
    res = await fetch(`/api/v1${path}`, {
      method,
      body,
      cache: 'no-store',
      headers: { ...(token && { authorization: `Bearer ${token}` }), ...person, ...headers },
    })
  } catch {
    throw new ApiError(0, 'NETWORK_ERROR', 'Could not reach the server. Check your connection and try again.')
  }
  const text = await res.text()
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch {
    data = undefined
  }
  if (!res.ok) {
    const b = (data ?? {}) as { error?: string; code?: string; details?: Record<string, unknown> }
    const error = new ApiError(res.status, b.code ?? `HTTP_${res.status}`, b.error ?? `Request failed (${res.status})`, b.details)
    // Break glass (a project admin's session): the same request again with the reason.
    if (error.code === 'CHANGE_REQUEST_REQUIRED' && !token)
      error.bypass = (reason) => sendText(method, path, body, { ...headers, 'flagship-bypass-reason': reason })
    throw error
  }
  return { data: data as T, text }
}

export const asCodeApi = {
  exportText: async (format: 'yaml' | 'json', kinds: string[]) =>
    (await sendText<unknown>('GET', `/export?format=${format}&kinds=${kinds.join(',')}`, undefined, {})).text,
  plan: async (text: string, prune: boolean) =>
    (await sendText<ImportPlan>('POST', `/import?mode=plan&prune=${prune}`, text, { 'content-type': mediaTypeOf(text) })).data,
  apply: async (text: string, prune: boolean, planId: string) =>
    (
      await sendText<ImportPlan>('POST', `/import?mode=apply&prune=${prune}`, text, {
        'content-type': mediaTypeOf(text),
        'if-match': `"${planId}"`,
      })
    ).data,
  /** The plan as a change request (protected environments): every change of plan `planId` as its items. */
  propose: async (text: string, prune: boolean, planId: string) =>
    (
      await sendText<Proposed>('POST', `/import?mode=propose&prune=${prune}`, text, {
        'content-type': mediaTypeOf(text),
        'if-match': `"${planId}"`,
      })
    ).data,
  compare: (a: string, b: string) => request<Comparison>('GET', '/environments/compare', { query: { a, b } }),
  promote: (body: { from: string; to: string; flags?: string[]; configs?: string[] }) => request<ImportPlan>('POST', '/promote', { body }),
  proposePromotion: (body: { from: string; to: string; flags?: string[]; configs?: string[] }) =>
    request<Proposed>('POST', '/promote', { body: { ...body, propose: true } }),
}
