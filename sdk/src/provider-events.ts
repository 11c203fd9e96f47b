// The event emitter an OpenFeature provider exposes as `events` (the SDKs attach their handlers to it).
// Written here rather than taken from @openfeature/core, so the SDK has no runtime dependency (only its
// types are used, and erased from the build): the SDKs call just these methods.
import type { AnyProviderEvent, EventContext, EventHandler, ProviderEventEmitter } from '@openfeature/core'

export class ProviderEvents implements ProviderEventEmitter<AnyProviderEvent> {
  private readonly handlers = new Map<AnyProviderEvent, Set<EventHandler>>()

  emit(eventType: AnyProviderEvent, context?: EventContext): void {
    for (const handler of [...(this.handlers.get(eventType) ?? [])]) {
      try {
        const out = handler(context as never)
        if (out instanceof Promise) out.catch(() => {})
      } catch {
        // A handler's failure is the application's; it must not stop the others or the SDK.
      }
    }
  }

  addHandler(eventType: AnyProviderEvent, handler: EventHandler): void {
    let set = this.handlers.get(eventType)
    if (set === undefined) this.handlers.set(eventType, (set = new Set()))
    set.add(handler)
  }

  removeHandler(eventType: AnyProviderEvent, handler: EventHandler): void {
    this.handlers.get(eventType)?.delete(handler)
  }

  removeAllHandlers(eventType?: AnyProviderEvent): void {
    if (eventType === undefined) this.handlers.clear()
    else this.handlers.delete(eventType)
  }

  getHandlers(eventType: AnyProviderEvent): EventHandler[] {
    return [...(this.handlers.get(eventType) ?? [])]
  }

  setLogger(): this {
    return this
  }
}
