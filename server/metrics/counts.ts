// Counts of operational events for GET /metrics (exposition.ts reads them at scrape time): webhook delivery
// attempts by outcome, and store errors by where they happened. Plain numbers with fixed label values, so
// the code that records an event needs nothing but a method call.

/** What became of one delivery attempt: `delivered`; `failed_attempt`, another attempt is scheduled;
 *  `failed`, no attempt is left (given up; an interrupted last attempt and a deleted webhook's deliveries too). */
export type DeliveryOutcome = 'delivered' | 'failed_attempt' | 'failed'
export const DELIVERY_OUTCOMES: readonly DeliveryOutcome[] = ['delivered', 'failed_attempt', 'failed']

/** Where a store error surfaced: `http`, a request answered 503 STORE_UNAVAILABLE; `webhooks`, the delivery
 *  worker's reads and writes of the outbox; `schedules`, the scheduled-change worker's look for due changes;
 *  `reconcile`, the periodic re-read of every project; `metrics`, the queue-depth count of a scrape. */
export type StoreErrorSource = 'http' | 'webhooks' | 'schedules' | 'reconcile' | 'metrics'
export const STORE_ERROR_SOURCES: readonly StoreErrorSource[] = ['http', 'webhooks', 'schedules', 'reconcile', 'metrics']

export class OperationCounts {
  readonly deliveries: Record<DeliveryOutcome, number> = { delivered: 0, failed_attempt: 0, failed: 0 }
  readonly storeErrors: Record<StoreErrorSource, number> = { http: 0, webhooks: 0, schedules: 0, reconcile: 0, metrics: 0 }

  delivery(outcome: DeliveryOutcome): void {
    this.deliveries[outcome]++
  }

  storeError(source: StoreErrorSource): void {
    this.storeErrors[source]++
  }
}
