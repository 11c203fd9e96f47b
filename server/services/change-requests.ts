// Change requests (docs/change-requests.md): several changes to flags, configs and segments proposed
// together, reviewed by people, and applied as one transaction through each resource's own change path, so
// audit, webhooks, the change stream and the caches see them as any other change. Every state change and
// review is a change of its own (audit entry, `change_request.*` event). The gate that refuses direct
// writes to protected environments is change-gate.ts.
import { parseIsoDate } from '../engine/dates'
import type { Db } from '../store'
import type { ChangeRequestRow, ReviewRow } from '../store/change-requests'
import { isStoreUnavailable } from '../store/unavailable'
import { checkItemShapes, dryRun, repositoryOf, staleItems } from './change-request-items'
import { runItem, type ItemServices } from './document-ops'
import type { ChangeRequestState } from '../store/vocabulary/change-requests'
import { auditView, changeRequestView, countedApprovers, eventData, requestPolicy, type Reviewers } from './change-request-views'
import type { RecordChange } from './change-runner'
import { by, type Actor, type ServiceDeps } from './context'
import { AppError, notFound, validationError, conflict, forbidden } from '../errors'
import { authorOf, authorRefusal, isAuthor, type Requester } from './change-request-author'
export type { Requester } from './change-request-author'

export interface ChangeRequestInput {
  title?: unknown
  description?: unknown
  items?: unknown
  apply_at?: unknown
}

const OPEN_STATES: ChangeRequestState[] = ['open', 'approved', 'scheduled']
const DATE_TIME_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:[Zz]|[+-]\d{2}:?\d{2})$/
const TEXT = /^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]*$/
const MAX_AHEAD_MS = 365 * 86_400_000

const invalidState = (row: ChangeRequestRow, what: string) =>
  conflict('INVALID_STATE', `Change request is ${row.state}; it cannot be ${what}`, { state: row.state })
const revisionMismatch = (row: ChangeRequestRow) =>
  conflict('REVISION_MISMATCH', `The change request is at revision ${row.revision}; reload it`, { revision: row.revision })

function checkText(input: ChangeRequestInput, creating: boolean, now: number) {
  const issues: { path: string; message: string }[] = []
  const out: { title?: string; description?: string; applyAt?: string | null } = {}
  if (input.title !== undefined || creating) {
    if (typeof input.title !== 'string' || !input.title.trim() || input.title.length > 200 || !TEXT.test(input.title))
      issues.push({ path: 'title', message: 'must be 1 to 200 characters of text' })
    else out.title = input.title.trim()
  }
  if (input.description !== undefined && input.description !== null) {
    if (typeof input.description !== 'string' || input.description.length > 10_000 || !TEXT.test(input.description))
      issues.push({ path: 'description', message: 'must be at most 10000 characters of text' })
    else out.description = input.description
  }
  if (input.apply_at === null) out.applyAt = null
  else if (input.apply_at !== undefined) {
    const at = typeof input.apply_at === 'string' && DATE_TIME_WITH_OFFSET.test(input.apply_at) ? parseIsoDate(input.apply_at) : NaN
    if (Number.isNaN(at)) issues.push({ path: 'apply_at', message: 'must be an ISO 8601 date-time with an offset' })
    else if (at <= now || at > now + MAX_AHEAD_MS)
      issues.push({ path: 'apply_at', message: 'must be in the future, at most 365 days ahead' })
    else out.applyAt = new Date(at).toISOString()
  }
  if (issues.length) throw validationError(issues)
  return out
}

export function changeRequestService({ store, changes }: Pick<ServiceDeps, 'store' | 'changes'>, services: ItemServices) {
  let reviewers: Reviewers = { person: () => undefined, mayReview: () => false }

  async function policyOf(db: Db, row: Pick<ChangeRequestRow, 'items' | 'projectId'>) {
    const [project, policies] = await Promise.all([store.projects.get(db, row.projectId), store.policies.byProject(db, row.projectId)])
    return requestPolicy(row, project?.environments ?? [], policies)
  }

  async function mustGet(db: Db, projectId: string, id: string, lock = false): Promise<ChangeRequestRow> {
    const row = await (lock ? store.changeRequests.getForUpdate(db, projectId, id) : store.changeRequests.get(db, projectId, id))
    if (!row) throw notFound('CHANGE_REQUEST_NOT_FOUND', `Change request "${id}"`)
    return row
  }

  /** One audited change of the request itself, with its event when it has one. */
  async function recordState(
    tx: Db,
    record: RecordChange,
    actor: Actor,
    before: ChangeRequestRow | null,
    after: ChangeRequestRow,
    event?: 'opened' | 'approved' | 'rejected' | 'applied' | 'cancelled' | 'failed',
    extra: Record<string, unknown> = {},
  ) {
    const policy = await policyOf(tx, after)
    await record({
      projectId: after.projectId,
      ...by(actor),
      action: before ? 'update' : 'create',
      resourceType: 'change_request',
      resourceKey: after.id,
      before: before && auditView(before),
      after: { ...auditView(after), ...extra },
      ...(event && {
        event: {
          kind: `change_request.${event}` as const,
          environment: '',
          data: { ...eventData(after, reviewers, policy.environments), ...extra },
        },
      }),
    })
  }

  /**
   * Inside a running change: every item through its service at its base version, as the author, after the
   * approvals are counted again and every base version checked (409 STALE_CHANGE_REQUEST, nothing written).
   */
  async function applyIn(tx: Db, record: RecordChange, row: ChangeRequestRow, by: Actor): Promise<ChangeRequestRow> {
    const policy = await policyOf(tx, row)
    const approvers = countedApprovers(row, await store.changeRequests.reviews(tx, [row.id]), policy, reviewers)
    if (approvers.length < policy.required) {
      throw conflict('NOT_APPROVED', `The change request has ${approvers.length} of ${policy.required} approvals`, {
        approvals: approvers.length,
        approvals_required: policy.required,
      })
    }
    const stale = await staleItems(store, tx, row.projectId, row.items)
    if (stale.length)
      throw conflict(
        'STALE_CHANGE_REQUEST',
        'What the request changes has changed since it was written; edit it (approvals are then needed again)',
        { items: stale },
      )
    const emails = approvers.map((id) => reviewers.person(id)?.email ?? id)
    const actor: Actor = {
      projectId: row.projectId,
      name: row.authorName,
      type: 'change_request',
      authority: { kind: 'change_request', id: row.id, approvers: emails },
    }
    const seen = new Set<string>()
    for (const [i, item] of row.items.entries()) {
      const first = !seen.has(`${item.resource_type}:${item.key}`)
      seen.add(`${item.resource_type}:${item.key}`)
      try {
        await runItem(services, tx, record, actor, item, first ? (item.base_version ?? undefined) : undefined)
      } catch (e) {
        if (!(e instanceof AppError)) throw e
        throw new AppError(e.status, e.code, `Item ${i} (${item.resource_type} "${item.key}", ${item.action}): ${e.message}`, {
          ...e.details,
          item: i,
        })
      }
    }
    const now = new Date().toISOString()
    const after = await store.changeRequests.update(
      tx,
      row.id,
      { state: [row.state], revision: row.revision },
      { state: 'applied', appliedAt: now, appliedApprovers: approvers, error: null, updatedAt: now },
    )
    if (!after) throw invalidState(row, 'applied')
    await recordState(tx, record, by, row, after, 'applied', { approvers: emails })
    return after
  }

  /** The author's rights checked again (now or at a scheduled time): when they fall short, the request is
   *  marked `failed` in `tx` (audited) and the refusal is answered, to be thrown after the commit. */
  async function failIfAuthorLacks(
    tx: Db,
    record: RecordChange,
    row: ChangeRequestRow,
    by: Actor,
  ): Promise<{ failed: ChangeRequestRow; refusal: AppError } | null> {
    const refusal = await authorRefusal(store, tx, reviewers, row, await policyOf(tx, row))
    if (!refusal) return null
    const error = { code: refusal.code, message: refusal.message }
    const failed = await store.changeRequests.update(
      tx,
      row.id,
      { state: [row.state], revision: row.revision },
      { state: 'failed', error, updatedAt: new Date().toISOString() },
    )
    if (!failed) throw invalidState(row, 'applied')
    await recordState(tx, record, by, row, failed, 'failed', { error })
    return { failed, refusal }
  }

  /** Many requests of one project at once (lists): policies, reviews and current versions read once. */
  async function views(projectId: string, rows: ChangeRequestRow[]) {
    if (!rows.length) return []
    const [project, policies, reviews] = await Promise.all([
      store.projects.get(store.db, projectId),
      store.policies.byProject(store.db, projectId),
      store.changeRequests.reviews(
        store.db,
        rows.map((r) => r.id),
      ),
    ])
    const types = [...new Set(rows.flatMap((r) => r.items.map((i) => i.resource_type)))]
    const versions = new Map<string, number>()
    for (const type of types)
      for (const doc of await repositoryOf(store, type).all(store.db, projectId)) versions.set(`${type}:${doc.key}`, doc.version)
    return rows.map((row) =>
      changeRequestView(
        row,
        reviews.filter((r) => r.changeRequestId === row.id),
        requestPolicy(row, project?.environments ?? [], policies),
        reviewers,
        row.items.map((i) => versions.get(`${i.resource_type}:${i.key}`) ?? null),
      ),
    )
  }

  async function view(row: ChangeRequestRow, reviews?: ReviewRow[]) {
    const currentVersions = await Promise.all(
      row.items.map(
        async (item) => (await repositoryOf(store, item.resource_type).get(store.db, row.projectId, item.key))?.version ?? null,
      ),
    )
    return changeRequestView(
      row,
      reviews ?? (await store.changeRequests.reviews(store.db, [row.id])),
      await policyOf(store.db, row),
      reviewers,
      currentVersions,
    )
  }

  return {
    /** Binds who may review (the people directory and roles exist once the service starts). */
    useReviewers(r: Reviewers) {
      reviewers = r
    },
    view,
    views,
    isAuthor,
    /** The requests of `rows` `userId` may review now (the awaiting inbox): policies read once. */
    async reviewable(userId: string, projectId: string, rows: ChangeRequestRow[]) {
      const [project, policies] = await Promise.all([
        store.projects.get(store.db, projectId),
        store.policies.byProject(store.db, projectId),
      ])
      return rows.filter((row) => {
        const policy = requestPolicy(row, project?.environments ?? [], policies)
        return reviewers.mayReview(userId, projectId, policy.affected, policy.needAdmin)
      })
    },
    get: (projectId: string, id: string) => mustGet(store.db, projectId, id),
    page: store.changeRequests.page.bind(null, store.db),
    reviewsOf: (ids: string[]) => store.changeRequests.reviews(store.db, ids),
    /** Shapes only (for the route's permission check, before the dry run). */
    checkItemShapes,
    /** The items as a dry run makes them (with before/after), writing nothing: for the route's permission
     *  check of update items, which affect one environment when they touch only its override. */
    dryRun: (req: Requester, raw: unknown) => dryRun(store, services, req.actor, checkItemShapes(raw)),

    async create(req: Requester, input: ChangeRequestInput, now = Date.now()): Promise<ChangeRequestRow> {
      const text = checkText(input, true, now)
      const items = await dryRun(store, services, req.actor, checkItemShapes(input.items))
      return changes.run(async (tx, record) => {
        const at = new Date(now).toISOString()
        const row: ChangeRequestRow = {
          id: crypto.randomUUID(),
          projectId: req.actor.projectId,
          title: text.title!,
          description: text.description ?? '',
          ...authorOf(req),
          authorName: req.actor.name,
          state: 'open',
          revision: 1,
          items,
          applyAt: text.applyAt ?? null,
          appliedAt: null,
          appliedApprovers: null,
          error: null,
          createdAt: at,
          updatedAt: at,
        }
        await store.changeRequests.insert(tx, row)
        await recordState(tx, record, req.actor, null, row, 'opened')
        return row
      })
    },

    /** The author's edit: a new revision; approvals given so far no longer count (back to `open`). */
    async edit(
      req: Requester,
      id: string,
      input: ChangeRequestInput & { revision?: unknown },
      now = Date.now(),
    ): Promise<ChangeRequestRow> {
      const current = await mustGet(store.db, req.actor.projectId, id)
      if (!isAuthor(req, current)) throw forbidden('FORBIDDEN', 'Only the author may edit a change request', { required: 'author' })
      const text = checkText(input, false, now)
      const items = input.items === undefined ? undefined : await dryRun(store, services, req.actor, checkItemShapes(input.items))
      return changes.run(async (tx, record) => {
        const before = await mustGet(tx, req.actor.projectId, id, true)
        if (!OPEN_STATES.includes(before.state)) throw invalidState(before, 'edited')
        if (input.revision !== before.revision) throw revisionMismatch(before)
        const after = await store.changeRequests.update(
          tx,
          id,
          { state: OPEN_STATES, revision: before.revision },
          {
            ...(text.title !== undefined && { title: text.title }),
            ...(text.description !== undefined && { description: text.description }),
            ...(text.applyAt !== undefined && { applyAt: text.applyAt }),
            ...(items && { items }),
            state: 'open',
            revision: before.revision + 1,
            updatedAt: new Date(now).toISOString(),
          },
        )
        if (!after) throw revisionMismatch(before)
        await recordState(tx, record, req.actor, before, after)
        return after
      })
    },

    /** A person's review; the HTTP layer has checked their rights in every environment the request affects. */
    review(
      req: Requester,
      id: string,
      input: { decision: 'approve' | 'reject' | 'comment'; revision: number; comment?: string | null },
      now = Date.now(),
    ): Promise<ChangeRequestRow> {
      if (req.userId === null)
        throw forbidden('FORBIDDEN', 'Reviews are made by people (a session or a personal token)', { required: 'person' })
      if (input.comment != null && (input.comment.length > 5000 || !TEXT.test(input.comment)))
        throw validationError([{ path: 'comment', message: 'must be at most 5000 characters of text' }])
      const userId = req.userId
      return changes.run(async (tx, record) => {
        const before = await mustGet(tx, req.actor.projectId, id, true)
        if (input.decision !== 'comment' && before.authorUserId === userId)
          throw forbidden('SELF_APPROVAL', 'The author of a change request cannot review it')
        if (input.decision !== 'comment' && !OPEN_STATES.includes(before.state)) throw invalidState(before, 'reviewed')
        if (input.revision !== before.revision) throw revisionMismatch(before)
        const policy = await policyOf(tx, before)
        if (input.decision !== 'comment' && !reviewers.mayReview(userId, before.projectId, policy.affected, policy.needAdmin)) {
          throw forbidden(
            'FORBIDDEN',
            policy.needAdmin ? 'Reviewing this request needs the project admin role' : 'You may not review this request',
            { required: policy.needAdmin ? 'admin' : 'editor', environments: policy.environments },
          )
        }
        const reviews = await store.changeRequests.reviews(tx, [id])
        if (
          input.decision === 'approve' &&
          reviews.some((r) => r.reviewerUserId === userId && r.decision === 'approve' && r.revision === before.revision)
        ) {
          throw conflict('ALREADY_APPROVED', 'You already approved this revision')
        }
        const at = new Date(now).toISOString()
        const review: ReviewRow = {
          id: crypto.randomUUID(),
          changeRequestId: id,
          reviewerUserId: userId,
          decision: input.decision,
          revision: before.revision,
          comment: input.comment ?? null,
          at,
        }
        await store.changeRequests.addReview(tx, review)
        let state: ChangeRequestState = before.state
        if (input.decision === 'reject') state = 'rejected'
        else if (
          input.decision === 'approve' &&
          before.state === 'open' &&
          countedApprovers(before, [...reviews, review], policy, reviewers).length >= policy.required
        ) {
          state = before.applyAt !== null && Date.parse(before.applyAt) > now ? 'scheduled' : 'approved'
        }
        const after = (await store.changeRequests.update(
          tx,
          id,
          { state: [before.state], revision: before.revision },
          { state, updatedAt: at },
        ))!
        const event = state === before.state ? undefined : state === 'rejected' ? ('rejected' as const) : ('approved' as const)
        await recordState(tx, record, req.actor, before, after, event, {
          review: { decision: review.decision, revision: review.revision, comment: review.comment },
        })
        return after
      })
    },

    /** By the author or a project admin, while not finished. */
    cancel(req: Requester, id: string, isProjectAdmin: boolean): Promise<ChangeRequestRow> {
      return changes.run(async (tx, record) => {
        const before = await mustGet(tx, req.actor.projectId, id, true)
        if (!isAuthor(req, before) && !isProjectAdmin)
          throw forbidden('FORBIDDEN', 'Only the author or a project admin may cancel a change request', { required: 'author' })
        if (!OPEN_STATES.includes(before.state)) throw invalidState(before, 'cancelled')
        const after = (await store.changeRequests.update(
          tx,
          id,
          { state: [before.state], revision: before.revision },
          { state: 'cancelled', updatedAt: new Date().toISOString() },
        ))!
        await recordState(tx, record, req.actor, before, after, 'cancelled')
        return after
      })
    },

    /** Applies an approved request now (the HTTP layer has checked the caller's rights). Of two at once, the
     *  second waits for the first's lock on the request and then finds it applied (409 INVALID_STATE). */
    async apply(req: Requester, id: string, revision: unknown): Promise<ChangeRequestRow> {
      const outcome = await changes.run(async (tx, record) => {
        const row = await mustGet(tx, req.actor.projectId, id, true)
        if (row.state === 'open') throw conflict('NOT_APPROVED', 'The change request is not approved yet')
        if (row.state !== 'approved' && row.state !== 'scheduled') throw invalidState(row, 'applied')
        if (revision !== row.revision) throw revisionMismatch(row)
        return (await failIfAuthorLacks(tx, record, row, req.actor)) ?? { applied: await applyIn(tx, record, row, req.actor) }
      })
      // The request is now `failed` (committed); the caller learns why.
      if ('refusal' in outcome) throw outcome.refusal
      return outcome.applied
    },

    nextDueAt: () => store.changeRequests.nextDueAt(store.db),

    /** The schedule worker's step: applies the earliest due scheduled request, claimed for this transaction
     *  (exactly once across instances); a refusal makes it `failed` with the error. */
    async applyDue(
      now = new Date().toISOString(),
    ): Promise<{ outcome: 'none' } | { outcome: 'applied' | 'failed'; changeRequest: ChangeRequestRow; cause?: unknown }> {
      let claimed: ChangeRequestRow | undefined
      try {
        const applied = await changes.run(async (tx, record) => {
          claimed = await store.changeRequests.claimDue(tx, now)
          if (!claimed) return undefined
          const by: Actor = { projectId: claimed.projectId, name: `change_request:${claimed.id}`, type: 'schedule' }
          return (await failIfAuthorLacks(tx, record, claimed, by)) ?? { applied: await applyIn(tx, record, claimed, by) }
        })
        if (applied && 'refusal' in applied) return { outcome: 'failed', changeRequest: applied.failed, cause: applied.refusal }
        return applied ? { outcome: 'applied', changeRequest: applied.applied } : { outcome: 'none' }
      } catch (e) {
        if (!claimed || isStoreUnavailable(e) || (e instanceof AppError && e.status >= 500)) throw e
        const row = claimed
        const error =
          e instanceof AppError
            ? { code: e.code, message: e.message }
            : { code: 'INTERNAL', message: 'Internal error while applying the change request' }
        const failed = await changes.run(async (tx, record) => {
          const after = await store.changeRequests.update(
            tx,
            row.id,
            { state: ['scheduled'], revision: row.revision },
            { state: 'failed', error, updatedAt: new Date().toISOString() },
          )
          if (after)
            await recordState(
              tx,
              record,
              { projectId: row.projectId, name: `change_request:${row.id}`, type: 'schedule' },
              row,
              after,
              'failed',
              { error },
            )
          return after
        })
        return failed ? { outcome: 'failed', changeRequest: failed, cause: e } : { outcome: 'none' }
      }
    },
  }
}
export type ChangeRequestService = ReturnType<typeof changeRequestService>
