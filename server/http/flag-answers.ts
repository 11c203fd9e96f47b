// Remembered answers of GET /api/v1/flags/:key on the fast path (fast-evaluation.ts). Applications ask the
// same question over and over (one user's page views: the same token, flag and context), and the answer
// changes only when the project's snapshot does. Remembering it saves the environment check, the engine and
// finding the prepared answer, which together cost more than the rest of the request once the service is
// large (docs/performance.md). Usage, exposures, the rate limit and the ETag check still happen per request:
// the remembered FlagEvaluation counts itself when it serves.
//
// Answers hang off the parsed context (the context memo, evaluation-context.ts, gives the same frozen object
// for the same text), so finding one costs no more hashing than the context lookup every request does
// anyway, and traffic whose contexts never repeat (a new user every request) pays nothing for it: only a
// context found in the context memo gets answers remembered. In front of that (`repeated`), each caller's
// last few remembered URLs are compared as text: an application instance re-rendering for the same user asks
// the same URL again and again, and comparing ~300 characters costs a fraction of cutting the context out of
// the URL and hashing it (measured in the served process: 0.3-0.7 µs of a remembered answer's ~2, most of
// it cache misses that a hot loop does not show; docs/performance.md).
import type { ProjectSnapshot, Snapshots } from '../cache/snapshots'
import { isClientKey } from '../access/client-keys'
import type { EvaluationContext } from '../engine'
import type { Caller } from './auth'
import { CONTEXT_QUERY, contextOfRaw, EMPTY_CONTEXT, rememberedContext } from './evaluation-context'
import { evaluateFlag, visibleFlag, type FlagEvaluation } from './evaluation-responses'

interface Remembered {
  caller: Caller
  /** the whole URL the answer was given for (path and `?context=`) */
  url: string
  /** the URL before its query: the flag's path (with scheme and host, as Bun gives the URL) */
  path: string
  /** the snapshot and its revision the answer was computed from: any change to the project's flags,
   *  segments, environments or the project itself, and its deletion, moves the revision (cache/snapshots.ts) */
  snapshot: ProjectSnapshot
  revision: number
  evaluation: FlagEvaluation
}

/** Answers kept per context: a page asks for a handful of flags; past this the oldest is replaced. Memory is
 *  bounded by the context memo's bound times this (the entries go with their context). */
const PER_CONTEXT = 16

/** A path longer than this (a client chooses the Host header) is evaluated every time, which keeps the
 *  memory a client can make us hold to the bound above times ~1.5 KiB (an entry keeps its URL: this path and
 *  a context text the context memo kept, at most 1 KiB). */
const MAX_PATH_LENGTH = 512

/** URLs compared as text per caller before the context lookup: the ones it asked last. A caller whose users
 *  vary (a server-side key) misses here at the cost of a few length comparisons and falls through. Memory:
 *  this many entries per caller in the authenticator's memo (callers are tokens an admin made). */
const RECENT_PER_CALLER = 4

export class FlagAnswers {
  /** per parsed context (frozen, shared by every request that sent the same text) */
  private readonly byContext = new WeakMap<EvaluationContext, Remembered[]>()
  /** per caller, its most recently served remembered answers, newest first (entries of `byContext` too) */
  private readonly recent = new WeakMap<Caller, Remembered[]>()

  constructor(private readonly snapshots: Snapshots) {}

  /** The remembered evaluation of a URL `caller` was answered for among its last few, while the project's
   *  snapshot has not changed; undefined otherwise (ask `evaluation`). A URL is remembered only after it
   *  passed the fast path's query check, so a repeat needs no second look at it. */
  repeated(caller: Caller, url: string): FlagEvaluation | undefined {
    const recent = this.recent.get(caller)
    if (recent !== undefined) {
      for (let i = 0; i < recent.length; i++) {
        const a = recent[i]!
        // A snapshot's revision moves with every change to the project, its deletion included.
        if (a.url === url) return a.revision === a.snapshot.revision ? a.evaluation : undefined
      }
    }
    return undefined
  }

  /** The evaluation of flag `key` for `url` (no query or exactly one `context=`: the fast path's check)
   *  as `caller` sees it: remembered when the same caller asked the same URL since the project's snapshot last
   *  changed (found by its context; `repeated` finds the most recent ones by their text first). Throws as the
   *  route would answer: 404 unknown flag, then 400 bad context, 400/403 environment. */
  evaluation(caller: Caller, url: string, key: string): FlagEvaluation {
    let q = url.indexOf('?')
    if (q === -1) q = url.length
    const raw = q === url.length ? '' : url.slice(q + CONTEXT_QUERY.length)
    const known = raw === '' ? EMPTY_CONTEXT : rememberedContext(raw)
    const answers = known === undefined ? undefined : this.byContext.get(known)
    if (answers !== undefined) {
      for (let i = 0; i < answers.length; i++) {
        const a = answers[i]!
        if (a.caller === caller && a.path.length === q && url.startsWith(a.path)) {
          if (a.revision !== a.snapshot.revision) break
          this.served(a)
          return a.evaluation
        }
      }
    }
    // Not remembered: as flagEvaluation (evaluation-responses.ts).
    const projectId = caller.actor.projectId
    const snapshot = this.snapshots.project(projectId)
    const { token } = caller
    const flag = visibleFlag(snapshot, key, isClientKey(token.permissions))
    const requested = known ?? contextOfRaw(raw)
    const evaluation = evaluateFlag(projectId, flag, requested, token.environment, snapshot!.project.environments)
    // A first sighting is not remembered, nor an answer that can change with the clock alone (an activity window).
    if (known !== undefined && evaluation.contextOnly && q <= MAX_PATH_LENGTH)
      this.remember(known, { caller, url, path: url.slice(0, q), snapshot: snapshot!, revision: snapshot!.revision, evaluation })
    return evaluation
  }

  private remember(context: EvaluationContext, answer: Remembered): void {
    let answers = this.byContext.get(context)
    if (answers === undefined) this.byContext.set(context, (answers = []))
    const same = answers.findIndex((a) => a.caller === answer.caller && a.path === answer.path)
    if (same !== -1) answers[same] = answer
    else if (answers.length < PER_CONTEXT) answers.push(answer)
    else {
      answers.shift()
      answers.push(answer)
    }
    this.served(answer)
  }

  /** Puts a remembered answer first among its caller's recent ones (the oldest goes past the bound). */
  private served(answer: Remembered): void {
    let recent = this.recent.get(answer.caller)
    if (recent === undefined) this.recent.set(answer.caller, (recent = []))
    const at = recent.findIndex((a) => a.url === answer.url)
    if (at !== -1) recent.splice(at, 1)
    else if (recent.length >= RECENT_PER_CALLER) recent.pop()
    recent.unshift(answer)
  }
}
