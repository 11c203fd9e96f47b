// Importing a document (docs/as-code.md §2): plan (writes nothing) and apply, which re-plans inside one
// transaction and performs exactly the plan's writes through the change runner, so each changed
// resource gets its audit entry (all sharing `details.change_set`), webhook outbox rows and stream entry
// as a direct write would, and notices go out after commit. If-Match on the plan id refuses (409
// PLAN_OUTDATED) when anything the plan covered moved; any error writes nothing.
import fastJsonPatch from 'fast-json-patch'
import { entryOf } from '../documents/entries'
import { exportDocument, type ExportSelection } from '../documents/export'
import type { FlagshipDocument } from '../documents/model'
import { planImport, type CurrentState, type Plan } from '../documents/plan'
import { proposalItems, type ProposedItem } from '../documents/proposal'
import type { Db } from '../store'
import type { DocumentRepository, StoredBody } from '../store/documents'
import type { RecordChange } from './change-runner'
import type { Actor, ServiceDeps } from './context'
import { validationError, conflict, invalid, notFoundWith } from '../errors'
import { KIND_OF_PLURAL } from '../kinds'
import { kindOps, writePlan } from './plan-writes'

export type Applied = Plan & { change_set: string | null }
export interface PromotionItem {
  resource_type: 'flag' | 'config'
  key: string
  action: 'set_override' | 'delete_override'
  environment: string
  body?: Record<string, unknown>
  base_version: number | null
}
export interface PromoteRequest {
  from: string
  to: string
  flags?: string[]
  configs?: string[]
  dry_run?: boolean
  expect?: Record<string, number>
}

function checkEnvironments(known: readonly string[], named: [string, string][]): void {
  const issues = named
    .filter(([, env]) => !known.includes(env))
    .map(([path, env]) => ({ path, message: `unknown environment "${env}"; the project has: ${known.join(', ')}` }))
  if (issues.length) throw validationError(issues)
}

type Overridden = 'flags' | 'configs'
type Stored = CurrentState[Overridden][number]
/** A stored flag's or config's overrides, by environment (both bodies keep them in `environments`). */
const overridesOf = (r: Stored): Readonly<Record<string, unknown>> | undefined => r.body.environments
const overrideOf = (r: Stored, env: string): unknown => {
  const envs = overridesOf(r)
  return envs && Object.hasOwn(envs, env) ? envs[env] : undefined
}

/** The document of a promotion: the named resources with `to`'s override replaced by `from`'s. */
function promotionDocument(state: CurrentState, req: PromoteRequest): FlagshipDocument {
  checkEnvironments(state.environments, [
    ['from', req.from],
    ['to', req.to],
  ])
  if (req.from === req.to) throw validationError([{ path: 'to', message: 'must differ from `from`' }])
  const all = req.flags === undefined && req.configs === undefined
  const pick = (kind: Overridden, names: string[] | undefined) => {
    const rows = new Map(state[kind].map((r) => [r.key, r]))
    const missing = (names ?? []).filter((k) => !rows.has(k))
    if (missing.length)
      throw notFoundWith(KIND_OF_PLURAL[kind].notFoundCode, `${KIND_OF_PLURAL[kind].label}(s) ${missing.join(', ')} not found`, {
        keys: missing,
      })
    const chosen = all ? [...rows.values()] : (names ?? []).map((k) => rows.get(k)!)
    return chosen.map((r) => {
      const envs = { ...overridesOf(r) }
      const o = overrideOf(r, req.from)
      if (o === undefined) delete envs[req.to]
      else envs[req.to] = o
      const { environments: _e, ...rest } = r.body
      // A resource that had no overrides and gets none stays without the field (else it would "change").
      return entryOf(kind, r.key, Object.keys(envs).length || r.body.environments !== undefined ? { ...rest, environments: envs } : rest)
    })
  }
  return { flagship: 1, flags: pick('flags', req.flags) as never, configs: pick('configs', req.configs) as never }
}

/** identical / different (with the RFC 6902 diff from a's override to b's) / only_a / only_b. */
function compareOverrides(rows: Stored[], a: string, b: string) {
  return rows.map((r) => {
    const oa = overrideOf(r, a)
    const ob = overrideOf(r, b)
    if (oa === undefined && ob === undefined) return { key: r.key, status: 'identical' as const }
    if (ob === undefined) return { key: r.key, status: 'only_a' as const }
    if (oa === undefined) return { key: r.key, status: 'only_b' as const }
    const diff = fastJsonPatch.compare(oa as object, ob as object)
    return diff.length ? { key: r.key, status: 'different' as const, diff } : { key: r.key, status: 'identical' as const }
  })
}

/** An import and a promotion read neither the audit log nor the outbox while they run: their audit
 *  entries and outbox rows are written a few hundred per statement (change-runner.ts). */
const BATCHED = { batched: true }

/** How many plans' versions this instance remembers, to say what moved when one is outdated. */
const REMEMBERED_PLANS = 200

export const planOutdated = (planId: string, current: Plan, remembered: Map<string, number | null> | undefined) => {
  const moved = remembered
    ? [...current.versions]
        .filter(([k, v]) => remembered.get(k) !== v)
        .map(([k, v]) => {
          const [kind, ...key] = k.split(':')
          return { kind, key: key.join(':'), planned_version: remembered.get(k) ?? null, current_version: v }
        })
    : undefined
  return conflict('PLAN_OUTDATED', `The state changed since plan ${planId}; plan again`, {
    plan_id: planId,
    current_plan_id: current.plan_id,
    ...(moved && { moved }),
  })
}

const refuseErrors = (plan: Plan) => {
  if (plan.errors.length)
    throw invalid(
      'VALIDATION_ERROR',
      `The document has ${plan.errors.length} error(s): ${plan.errors
        .slice(0, 5)
        .map((e) => `${e.path}: ${e.message}`)
        .join('; ')}`,
      { issues: plan.errors },
    )
}

export function importService({ store, changes }: Pick<ServiceDeps, 'store' | 'changes'>) {
  const ops = kindOps(store)
  const remembered = new Map<string, Map<string, number | null>>()
  const remember = (plan: Plan) => {
    remembered.delete(plan.plan_id)
    remembered.set(plan.plan_id, plan.versions)
    if (remembered.size > REMEMBERED_PLANS) remembered.delete(remembered.keys().next().value!)
  }

  async function currentState(db: Db, projectId: string): Promise<CurrentState & { project: string }> {
    const project = await store.projects.get(db, projectId)
    const rows = async <Body extends StoredBody>(repo: DocumentRepository<Body>) =>
      (await repo.all(db, projectId)).map((r) => ({ key: r.key, version: r.version, body: r.body }))
    return {
      project: project?.slug ?? projectId,
      environments: project?.environments ?? [],
      segments: await rows(store.segments),
      flags: await rows(store.flags),
      configs: await rows(store.configs),
    }
  }

  /** Performs a plan's writes inside the running change; refuses (400) a plan with errors. */
  async function applyIn(tx: Db, record: RecordChange, actor: Actor, plan: Plan): Promise<Applied> {
    refuseErrors(plan)
    if (!plan.steps.length) return { ...plan, change_set: null }
    const changeSet = crypto.randomUUID()
    const inSet: RecordChange = (change) => record({ ...change, details: { ...change.details, change_set: changeSet } })
    await writePlan(tx, inSet, actor, plan.steps, ops, new Date().toISOString())
    return { ...plan, change_set: changeSet }
  }

  return {
    /** The project's state as a document (GET /api/v1/export). */
    async export(projectId: string, selection: ExportSelection): Promise<FlagshipDocument> {
      const state = await currentState(store.db, projectId)
      return exportDocument(state, selection)
    },

    /** What importing `doc` would do now; writes nothing. */
    async plan(actor: Actor, doc: FlagshipDocument, prune: boolean): Promise<Plan> {
      const plan = planImport(doc, await currentState(store.db, actor.projectId), { prune })
      remember(plan)
      return plan
    },

    /** Imports `doc` in one transaction; with `planId`, only if the plan is still that one. A plan with
     *  errors writes nothing (400 with every error). */
    apply(actor: Actor, doc: FlagshipDocument, opts: { prune: boolean; planId?: string }): Promise<Applied> {
      return changes.run(async (tx, record) => {
        // Serialises with every other change to the flag graph (PostgreSQL; SQLite serialises writes).
        await store.lockFlagGraph(tx, actor.projectId)
        const plan = planImport(doc, await currentState(tx, actor.projectId), { prune: opts.prune })
        if (opts.planId !== undefined && opts.planId !== plan.plan_id) throw planOutdated(opts.planId, plan, remembered.get(opts.planId))
        return applyIn(tx, record, actor, plan)
      }, BATCHED)
    },

    /** The plan of `doc` and its writes as change-request items (mode=propose); writes nothing. As apply:
     *  with `planId`, only if the plan is still that one; a plan with errors is refused (400). */
    async propose(
      actor: Actor,
      doc: FlagshipDocument,
      opts: { prune: boolean; planId?: string },
    ): Promise<{ plan: Plan; items: ProposedItem[] }> {
      const state = await currentState(store.db, actor.projectId)
      const plan = planImport(doc, state, { prune: opts.prune })
      if (opts.planId !== undefined && opts.planId !== plan.plan_id) throw planOutdated(opts.planId, plan, remembered.get(opts.planId))
      refuseErrors(plan)
      remember(plan)
      return { plan, items: proposalItems(plan, state) }
    },

    /** Copies `from`'s overrides of the named flags and configs (all, when none are named) to `to`, or
     *  removes `to`'s where `from` has none (docs/as-code.md §3): a plan of those updates, applied in one
     *  transaction unless `dryRun`. `expect`: key -> the version the caller saw (409 CONFLICT otherwise). */
    async promote(actor: Actor, req: PromoteRequest): Promise<Applied> {
      const run = async (tx: Db, record?: RecordChange): Promise<Applied> => {
        const state = await currentState(tx, actor.projectId)
        const plan = planImport(promotionDocument(state, req), state, { prune: false })
        for (const [key, version] of Object.entries(req.expect ?? {})) {
          const now = plan.versions.get(`flags:${key}`) ?? plan.versions.get(`configs:${key}`)
          if (now !== undefined && now !== version)
            throw conflict('CONFLICT', `"${key}" is at version ${now}, not ${version}`, { key, current_version: now })
        }
        if (!record) {
          remember(plan)
          return { ...plan, change_set: null }
        }
        return applyIn(tx, record, actor, plan)
      }
      if (req.dry_run) return run(store.db)
      return changes.run(async (tx, record) => {
        await store.lockFlagGraph(tx, actor.projectId)
        return run(tx, record)
      }, BATCHED)
    },

    /** A promotion as change-request items (docs/as-code.md §3, propose): one set_override (or
     *  delete_override, where `from` has none) in `to` per resource the promotion would change, pinned to
     *  the version the plan read, so the request affects `to` only. Writes nothing. */
    async proposePromotion(actor: Actor, req: PromoteRequest): Promise<{ plan: Plan; items: PromotionItem[] }> {
      const state = await currentState(store.db, actor.projectId)
      const plan = planImport(promotionDocument(state, req), state, { prune: false })
      remember(plan)
      const items = plan.steps.map((step): PromotionItem => {
        const kind = step.kind as Overridden
        const o = overrideOf(state[kind].find((r) => r.key === step.key)!, req.from)
        const base = {
          resource_type: KIND_OF_PLURAL[kind].type,
          key: step.key,
          environment: req.to,
          base_version: step.fromVersion,
        }
        return o === undefined
          ? { ...base, action: 'delete_override' }
          : { ...base, action: 'set_override', body: o as Record<string, unknown> }
      })
      return { plan, items }
    },

    /** Each flag's and config's overrides of two environments side by side. */
    async compare(projectId: string, a: string, b: string, kinds: { flags: boolean; configs: boolean }) {
      const state = await currentState(store.db, projectId)
      checkEnvironments(state.environments, [
        ['a', a],
        ['b', b],
      ])
      return {
        a,
        b,
        ...(kinds.flags && { flags: compareOverrides(state.flags, a, b) }),
        ...(kinds.configs && { configs: compareOverrides(state.configs, a, b) }),
      }
    },
  }
}
export type ImportService = ReturnType<typeof importService>
