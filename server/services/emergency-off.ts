// Emergency off (docs/change-requests.md §1): in a protected environment whose policy allows it, a change
// whose only effect is to stop serving is applied without review. Decided on the flag's stored form before
// and after the change (pure): every difference must be a switch turned off (the main switch, or an
// environment's, including a new override that is only `{ enabled: false }`) or a rollout percentage
// lowered to 0 (the flag's, or an environment's own targeting). Anything else, a value, a rule, a switch
// turned on, needs review as before.

const VOLATILE = new Set(['version', 'created_at', 'updated_at'])

type Json = unknown
interface Difference {
  path: string[]
  before: Json
  after: Json
}

const isObject = (v: Json): v is Record<string, Json> => v !== null && typeof v === 'object' && !Array.isArray(v)
const same = (a: Json, b: Json) => JSON.stringify(a) === JSON.stringify(b)

/** The differing leaves of two JSON values; a missing object is compared as an empty one. */
function differences(before: Json, after: Json, path: string[], out: Difference[]): void {
  if (same(before, after)) return
  const a = before === undefined && isObject(after) ? {} : before
  const b = after === undefined && isObject(before) ? {} : after
  if (isObject(a) && isObject(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      if (path.length === 0 && VOLATILE.has(k)) continue
      differences(a[k], b[k], [...path, k], out)
    }
    return
  }
  out.push({ path, before, after })
}

/** The part of the flag a path is in: the flag itself ([]) or one environment's override. */
const scopeLength = (path: string[]) => (path[0] === 'environments' && path.length >= 2 ? 2 : 0)

function stopsServing(d: Difference): boolean {
  const rest = d.path.slice(scopeLength(d.path))
  if (rest.length === 1 && rest[0] === 'enabled') return d.after === false && d.before !== false
  if (rest.join('.') === 'targeting.rollout.percentage') return d.after === 0 && typeof d.before === 'number' && d.before > 0
  return false
}

/** Whether going from `before` to `after` (a flag's wire form) only stops serving. */
export function onlyStopsServing(before: Json, after: Json): boolean {
  if (!isObject(before) || !isObject(after)) return false
  const diffs: Difference[] = []
  differences(before, after, [], diffs)
  return diffs.length > 0 && diffs.every(stopsServing)
}
