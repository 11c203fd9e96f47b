// A relay's own series on GET /metrics (docs/operations.md, Relays): how it is connected to its upstream,
// how old its data is, the upstream change number it is at, and the batches it forwards.
import { Counter, Gauge, type Registry } from 'prom-client'

export interface RelaySources {
  upstream(): 'connected' | 'polling' | 'unreachable' | 'starting'
  dataAgeSeconds(): number | null
  changeSequence(): number
  batches(): { sent: number; pending: number; dropped: number }
}

const STATES = ['connected', 'polling', 'unreachable', 'starting'] as const

export function relaySeries(registry: Registry, relay: RelaySources): void {
  new Gauge({
    name: 'flagship_relay_upstream',
    help: "This relay's link to its upstream: 1 for the current state (connected: following the stream; polling: stream lost; unreachable)",
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const now = relay.upstream()
      for (const state of STATES) this.set({ state }, state === now ? 1 : 0)
    },
  })
  new Gauge({
    name: 'flagship_relay_data_age_seconds',
    help: "Seconds since the upstream last confirmed this relay's definitions (absent: never)",
    registers: [registry],
    collect() {
      const age = relay.dataAgeSeconds()
      if (age === null) this.remove()
      else this.set(age)
    },
  })
  new Gauge({
    name: 'flagship_relay_change_sequence',
    help: 'The upstream change number this relay serves',
    registers: [registry],
    collect() {
      this.set(relay.changeSequence())
    },
  })
  new Counter({
    name: 'flagship_relay_forwarded_batches_total',
    help: 'Batches of usage and events this relay delivered to its upstream',
    registers: [registry],
    collect() {
      this.reset()
      this.inc(relay.batches().sent)
    },
  })
  new Counter({
    name: 'flagship_relay_dropped_batches_total',
    help: 'Batches dropped because the spool was full (the upstream away too long; RELAY_CACHE_FILE keeps the rest)',
    registers: [registry],
    collect() {
      this.reset()
      this.inc(relay.batches().dropped)
    },
  })
  new Gauge({
    name: 'flagship_relay_pending_batches',
    help: 'Batches waiting for the upstream (kept in memory and in RELAY_CACHE_FILE)',
    registers: [registry],
    collect() {
      this.set(relay.batches().pending)
    },
  })
}
