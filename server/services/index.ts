// server/services: every change, and the reads that need the store. HTTP routes and the CLI call these; they
// call the store (one transaction per change through change-runner.ts: row + audit + outbox + stream entry)
// and publish change notices after commit (events.ts), which the cache, streams, webhooks and other
// instances consume. Builds every service over one store, change runner and cache.
import { createChangeRunner } from './change-runner'
import type { ServiceDeps } from './context'
import type { ChangeBus } from '../notices/changes'
import type { Store } from '../store'
import type { Snapshots } from '../cache/snapshots'
import type { Settings } from '../settings'
import { flagService } from './flags'
import { flagExplainer } from './flag-explain'
import { configService } from './configs'
import { segmentService } from './segments'
import { tokenService } from './tokens'
import { webhookService } from './webhooks'
import { projectService } from './project'
import { auditService } from './audit'
import { scheduleService } from './schedules'
import { usageService } from './usage'
import { policyService } from './policies'
import { changeRequestService } from './change-requests'
import { importService } from './imports'
import { experimentService } from './experiments'
import { experimentMetricService } from './experiment-metrics'
import { experimentStopper } from './experiment-stop'
import { experimentEventService } from './experiment-events'
import { experimentResultService } from './experiment-results'
import { experimentUnitService } from './experiment-units'
import { releasePlanService } from './release-plans'
import { releasePlanMonitor } from './release-plan-monitor'

export function createServices(store: Store, bus: ChangeBus, snapshots: Snapshots, settings: Settings) {
  const deps: ServiceDeps = { store, changes: createChangeRunner(store, bus, settings.streamReplayLimit), snapshots, settings }
  const flags = flagService(deps)
  const configs = configService(deps)
  const segments = segmentService(deps)
  const changeRequests = changeRequestService(deps, { flag: flags, config: configs, segment: segments })
  const experiments = experimentService(deps)
  const releasePlans = releasePlanService(deps, flags, changeRequests)
  return {
    flags,
    explain: flagExplainer(deps, flags),
    schedules: scheduleService(deps, flags),
    configs,
    segments,
    policies: policyService(deps),
    changeRequests,
    tokens: tokenService(deps),
    webhooks: webhookService(deps),
    project: projectService(deps),
    audit: auditService(deps),
    usage: usageService(deps),
    imports: importService(deps),
    experiments,
    experimentStops: experimentStopper(deps, experiments, flags, changeRequests),
    metrics: experimentMetricService(deps),
    events: experimentEventService(deps),
    experimentResults: experimentResultService(deps),
    experimentUnits: experimentUnitService(deps),
    releasePlans,
    releaseMonitor: releasePlanMonitor(deps, releasePlans),
  }
}
export type Services = ReturnType<typeof createServices>
