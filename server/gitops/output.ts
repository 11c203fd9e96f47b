// The CLI's surroundings (Io), and how it prints a plan for people: one line per change with its RFC 6902 operations, then the
// summary and the plan id (to pass to `apply --plan-id`).
/** Where a command writes and what it reads from its surroundings (the process, or a test's). */
export interface Io {
  out(text: string): void
  err(text: string): void
  env: Record<string, string | undefined>
  fetch: typeof fetch
}

export interface PlanAnswer {
  plan_id: string
  summary: { create: number; update: number; delete: number; unchanged: number }
  changes: {
    resource_type: string
    key: string
    action: string
    current_version: number | null
    diff: { op: string; path: string; value?: unknown }[]
  }[]
  errors: { path: string; line?: number; file?: string; message: string }[]
  change_set?: string | null
}

const SIGN: Record<string, string> = { create: '+', update: '~', delete: '-' }
const short = (v: unknown) => {
  const s = JSON.stringify(v)
  return s === undefined ? '' : s.length > 120 ? `${s.slice(0, 117)}...` : s
}

export function printPlan(p: PlanAnswer, mode: 'plan' | 'apply'): string {
  const lines: string[] = []
  for (const c of p.changes) {
    lines.push(`${SIGN[c.action] ?? '?'} ${c.resource_type} ${c.key}${c.current_version !== null ? ` (version ${c.current_version})` : ''}`)
    if (c.action === 'update')
      for (const op of c.diff) lines.push(`    ${op.op} ${op.path}${op.op === 'remove' ? '' : ` ${short(op.value)}`}`)
  }
  for (const e of p.errors) lines.push(`error: ${e.file ? `${e.file}: ` : ''}${e.path}${e.line ? ` (line ${e.line})` : ''}: ${e.message}`)
  const s = p.summary
  const verb = mode === 'plan' ? 'planned' : 'applied'
  lines.push(`${verb}: ${s.create} to create, ${s.update} to update, ${s.delete} to delete, ${s.unchanged} unchanged`)
  if (mode === 'plan') lines.push(`plan id: ${p.plan_id}`)
  else if (p.change_set) lines.push(`change set: ${p.change_set}`)
  return `${lines.join('\n')}\n`
}
