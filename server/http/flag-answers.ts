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
// context found in the context memo gets answers remembered.
import type { BunRequest } from 'bun'
import type { ProjectSnapshot, Snapshots } from '../cache/snapshots'
import { isClientKey } from '../access/client-keys'
import type { EvaluationContext } from '../engine'
import type { Caller } from './auth'
import { CONTEXT_QUERY, contextOfRaw, EMPTY_CONTEXT, rememberedContext } from './evaluation-context'
import { evaluateFlag, visibleFlag, type FlagEvaluation } from './evaluation-responses'

interface Remembered {
  caller: Caller
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
 *  memory a client can make us hold to the bound above times ~0.5 KiB. */
const MAX_PATH_LENGTH = 512

export class FlagAnswers {
  /** per parsed context (frozen, shared by every request that sent the same text) */
  private readonly byContext = new WeakMap<EvaluationContext, Remembered[]>()

  constructor(private readonly snapshots: Snapshots) {}

  /** The evaluation for `request` (whose `url` has no query or exactly one `context=`: the fast path's check)
   *  as `caller` sees it: remembered when the same caller asked the same URL since the project's snapshot last
   *  changed. Throws as the route would answer: 404 unknown flag, then 400 bad context, 400/403 environment. */
  evaluation(caller: Caller, url: string, request: BunRequest<string>): FlagEvaluation {
    let q = url.indexOf('?')
    if (q === -1) q = url.length
    const raw = q === url.length ? '' : url.slice(q + CONTEXT_QUERY.length)
    const known = raw === '' ? EMPTY_CONTEXT : rememberedContext(raw)
    const answers = known === undefined ? undefined : this.byContext.get(known)
    if (answers !== undefined) {
      for (let i = 0; i < answers.length; i++) {
        const a = answers[i]!
        if (a.caller === caller && a.path.length === q && url.startsWith(a.path)) {
          // A snapshot's revision moves with every change to the project, its deletion included.
          if (a.revision === a.snapshot.revision) return a.evaluation
          break
        }
      }
    }
    // Not remembered: as flagEvaluation (evaluation-responses.ts), the path's key read only now (Bun builds
    // `params` when asked).
    const projectId = caller.actor.projectId
    const snapshot = this.snapshots.project(projectId)
    const { token } = caller
    const flag = visibleFlag(snapshot, request.params.key!, isClientKey(token.permissions))
    const requested = known ?? contextOfRaw(raw)
    const evaluation = evaluateFlag(projectId, flag, requested, token.environment, snapshot!.project.environments)
    // A first sighting is not remembered, nor an answer that can change with the clock alone (an activity window).
    if (known !== undefined && evaluation.contextOnly && q <= MAX_PATH_LENGTH)
      this.remember(known, { caller, path: url.slice(0, q), snapshot: snapshot!, revision: snapshot!.revision, evaluation })
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
  }
}
