// Builds every service over one store, change runner and cache.
import { createChangeRunner } from './change-runner'
import type { ServiceDeps } from './context'
import type { ChangeBus } from './events'
import type { Store } from '../store'
import type { Snapshots } from '../cache/snapshots'
import type { Settings } from '../settings'
import { flagService } from './flags'
import { configService } from './configs'
import { segmentService } from './segments'
import { tokenService } from './tokens'
import { webhookService } from './webhooks'
import { projectService } from './project'
import { auditService } from './audit'

export function createServices(store: Store, bus: ChangeBus, snapshots: Snapshots, settings: Settings) {
  const deps: ServiceDeps = { store, changes: createChangeRunner(store, bus), snapshots, settings }
  return {
    flags: flagService(deps),
    configs: configService(deps),
    segments: segmentService(deps),
    tokens: tokenService(deps),
    webhooks: webhookService(deps),
    project: projectService(deps),
    audit: auditService(deps),
  }
}
export type Services = ReturnType<typeof createServices>
