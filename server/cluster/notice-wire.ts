// Change notices as messages between instances (cluster/fanout.ts). One notice is one message, as before;
// the notices of one large commit (an import of thousands) go as a few batch messages instead, each within
// a byte budget (PostgreSQL's NOTIFY takes payloads under 8000 bytes) and each about one project, with
// every notice's stream entry, so the other instances' streams send every change as this one's do.
import type { ChangeNotice, NoticeType, StreamChange } from '../notices/changes'

/** One notice of a batch: type and key, then its stream entry without what the notice already says
 *  (seq, action, version, environment, at), or the entry whole when it names another resource. */
type Packed =
  | [NoticeType, string]
  | [NoticeType, string, number, StreamChange['action'], number | null, string, string]
  | [NoticeType, string, StreamChange]

interface SingleMessage extends ChangeNotice {
  origin: string
}

interface BatchMessage {
  origin: string
  projectId: string
  batch: Packed[]
}

export type Received = { origin: string; notices: ChangeNotice[] }

const pack = (n: ChangeNotice): Packed => {
  const c = n.change
  if (!c) return [n.resourceType, n.resourceKey]
  if (c.resource_type !== n.resourceType || c.key !== n.resourceKey) return [n.resourceType, n.resourceKey, c]
  return [n.resourceType, n.resourceKey, c.seq, c.action, c.version, c.environment, c.at]
}

const unpack = (projectId: string, p: Packed): ChangeNotice => {
  const [resourceType, resourceKey] = p
  if (p.length === 2) return { projectId, resourceType, resourceKey }
  if (p.length === 3) return { projectId, resourceType, resourceKey, change: p[2] }
  const [, , seq, action, version, environment, at] = p
  return {
    projectId,
    resourceType,
    resourceKey,
    change: { seq, resource_type: resourceType as StreamChange['resource_type'], key: resourceKey, action, version, environment, at },
  }
}

export const singleMessage = (origin: string, n: ChangeNotice): string => JSON.stringify({ ...n, origin } satisfies SingleMessage)

/** The messages that carry `notices` in order: consecutive notices of one project share a message while
 *  it stays within `maxBytes` (a notice alone is never split). */
export function batchMessages(origin: string, notices: readonly ChangeNotice[], maxBytes: number): string[] {
  const messages: string[] = []
  let projectId = ''
  let parts: string[] = []
  let bytes = 0
  const head = (p: string) => `{"origin":${JSON.stringify(origin)},"projectId":${JSON.stringify(p)},"batch":[`
  const close = () => {
    if (parts.length) messages.push(`${head(projectId)}${parts.join(',')}]}`)
    parts = []
  }
  for (const n of notices) {
    const part = JSON.stringify(pack(n))
    const size = Buffer.byteLength(part) + 1
    if (parts.length && (n.projectId !== projectId || bytes + size > maxBytes)) close()
    if (!parts.length) {
      projectId = n.projectId
      bytes = Buffer.byteLength(head(projectId)) + 2
    }
    parts.push(part)
    bytes += size
  }
  close()
  return messages
}

/** A message back into notices; undefined when it is not one of ours. */
export function readMessage(raw: string): Received | undefined {
  let msg: SingleMessage | BatchMessage
  try {
    msg = JSON.parse(raw)
  } catch {
    return undefined
  }
  if (typeof msg?.origin !== 'string') return undefined
  if ('batch' in msg)
    return Array.isArray(msg.batch) ? { origin: msg.origin, notices: msg.batch.map((p) => unpack(msg.projectId, p)) } : undefined
  const { projectId, resourceType, resourceKey, change } = msg
  return { origin: msg.origin, notices: [{ projectId, resourceType, resourceKey, ...(change && { change }) }] }
}
