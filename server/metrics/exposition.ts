// GET /metrics: the scrape's text and content type. prom-client (about 1.7 MB of heap) and the registry
// (registry.ts) are loaded at the first scrape, not at start: an instance nobody scrapes never carries them
// (memory and start time: docs/performance.md, 2026-11-29).
import type { MetricsSources } from './registry'

export type { MetricsSources } from './registry'

/** The Prometheus text format's content type (prom-client's registry gives the same; a unit test holds them
 *  together). */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8'

export interface MetricsExposition {
  contentType: string
  text(): Promise<string>
}

export function createExposition(sources: MetricsSources): MetricsExposition {
  let registry: Promise<{ text(): Promise<string> }> | undefined
  return {
    contentType: PROMETHEUS_CONTENT_TYPE,
    async text() {
      registry ??= import('./registry').then((m) => m.buildRegistry(sources))
      return (await registry).text()
    },
  }
}
