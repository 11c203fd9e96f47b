// flagship-sdk/openfeature: OpenFeature providers that evaluate in process through a FlagshipClient, with
// the OFREP route's mapping (server/engine/openfeature.ts): `targetingKey` is `user_id`, reasons STATIC,
// DEFAULT, TARGETING_MATCH, SPLIT, DISABLED, variants off, override, rule-<n>, rollout, default.
// FlagshipProvider is for @openfeature/server-sdk (resolvers return promises), FlagshipWebProvider for
// @openfeature/web-sdk (resolvers answer synchronously; the SDK passes the global context).
import { EvaluationBudgetExceeded } from '../../server/engine/budget'
import { InvalidContextError, openFeatureContext, resolveOpenFeature } from '../../server/engine/openfeature'
import { FlagshipClient } from './client'
import { ProviderEvents } from './provider-events'
import type { ClientOptions, Context, Json } from './types'
// Types only (erased from the build): a provider's answers must carry OpenFeature's own ErrorCode type.
import type { AnyProviderEvent, ErrorCode, EvaluationContext, ResolutionDetails, TrackingEventDetails } from '@openfeature/core'

export { ProviderEvents } from './provider-events'

type FlagType = 'boolean' | 'string' | 'number' | 'object'

type Resolution<T> = ResolutionDetails<T>

const fits = (value: Json, type: FlagType): boolean => (type === 'object' ? typeof value === 'object' : typeof value === type)
const failure = <T>(value: T, errorCode: `${ErrorCode}`, errorMessage: string): Resolution<T> => ({
  value,
  reason: 'ERROR',
  errorCode: errorCode as ErrorCode,
  errorMessage,
})

/** What both providers share: the client, the events, the resolution. */
abstract class FlagshipProviderBase {
  readonly metadata = { name: 'flagship' } as const
  readonly events = new ProviderEvents()
  readonly client: FlagshipClient
  private readonly owned: boolean
  private unsubscribe: (() => void) | undefined

  /** Give it a client (shared with your own calls), or the options to make one (closed with the provider). */
  constructor(client: FlagshipClient | ClientOptions) {
    this.owned = !(client instanceof FlagshipClient)
    this.client = client instanceof FlagshipClient ? client : new FlagshipClient(client)
  }

  /** Called by the SDK: ready once the client has definitions; then every change is announced. */
  async initialize(): Promise<void> {
    this.unsubscribe ??= this.client.on('change', (e) =>
      this.events.emit('PROVIDER_CONFIGURATION_CHANGED' as AnyProviderEvent, { flagsChanged: e.flags }),
    )
    await this.client.ready()
  }

  async onClose(): Promise<void> {
    this.unsubscribe?.()
    this.unsubscribe = undefined
    if (this.owned) await this.client.close()
  }

  /** OpenFeature's tracking API: `client.track(name, context, { value })` becomes a track event (the
   *  context mapped as for evaluation: `targetingKey` is `user_id`). */
  track(trackingEventName: string, context?: EvaluationContext, trackingEventDetails?: TrackingEventDetails): void {
    let mapped
    try {
      mapped = openFeatureContext(context ?? {})
    } catch (e) {
      if (e instanceof InvalidContextError) return
      throw e
    }
    const value = trackingEventDetails?.value
    this.client.track(trackingEventName, mapped as Context, typeof value === 'number' && Number.isFinite(value) ? value : undefined)
  }

  protected resolve<T>(key: string, defaultValue: T, type: FlagType, context: EvaluationContext | undefined): Resolution<T> {
    let mapped
    try {
      mapped = openFeatureContext(context ?? {})
    } catch (e) {
      if (e instanceof InvalidContextError) return failure(defaultValue, 'INVALID_CONTEXT', e.message)
      throw e
    }
    let found
    try {
      found = this.client.resolve(key, mapped)
    } catch (e) {
      if (e instanceof EvaluationBudgetExceeded) return failure(defaultValue, 'GENERAL', e.message)
      throw e
    }
    if (found === undefined) return failure(defaultValue, 'FLAG_NOT_FOUND', `Flag "${key}" not found`)
    const resolved = resolveOpenFeature(key, found.entry.compiled, found.context, found.result)
    if ('errorCode' in resolved) return failure(defaultValue, resolved.errorCode, resolved.errorDetails)
    const flagMetadata = {
      environment: typeof found.context.environment === 'string' ? found.context.environment : '',
      ...(found.entry.version !== undefined && { flagVersion: found.entry.version }),
    }
    // The off value of a non-boolean flag is null, which no typed getter can return: the default stands in,
    // with the reason (DISABLED) and variant (off) saying why.
    if (resolved.value === null) return { value: defaultValue, reason: resolved.reason, variant: resolved.variant, flagMetadata }
    if (!fits(resolved.value, type))
      return {
        ...failure(
          defaultValue,
          'TYPE_MISMATCH',
          `Flag "${key}" is of type ${Array.isArray(resolved.value) ? 'array' : typeof resolved.value}, not ${type}`,
        ),
        flagMetadata,
      }
    return { value: resolved.value as T, reason: resolved.reason, variant: resolved.variant, flagMetadata }
  }
}

/** For @openfeature/server-sdk: `await OpenFeature.setProviderAndWait(new FlagshipProvider({ url, token }))`. */
export class FlagshipProvider extends FlagshipProviderBase {
  readonly runsOn = 'server' as const

  resolveBooleanEvaluation(key: string, defaultValue: boolean, context: EvaluationContext): Promise<Resolution<boolean>> {
    return Promise.resolve(this.resolve(key, defaultValue, 'boolean', context))
  }

  resolveStringEvaluation(key: string, defaultValue: string, context: EvaluationContext): Promise<Resolution<string>> {
    return Promise.resolve(this.resolve(key, defaultValue, 'string', context))
  }

  resolveNumberEvaluation(key: string, defaultValue: number, context: EvaluationContext): Promise<Resolution<number>> {
    return Promise.resolve(this.resolve(key, defaultValue, 'number', context))
  }

  resolveObjectEvaluation<T>(key: string, defaultValue: T, context: EvaluationContext): Promise<Resolution<T>> {
    return Promise.resolve(this.resolve(key, defaultValue, 'object', context))
  }
}

/** For @openfeature/web-sdk: evaluation is synchronous, from the definitions the client holds. */
export class FlagshipWebProvider extends FlagshipProviderBase {
  readonly runsOn = 'client' as const

  resolveBooleanEvaluation(key: string, defaultValue: boolean, context: EvaluationContext): Resolution<boolean> {
    return this.resolve(key, defaultValue, 'boolean', context)
  }

  resolveStringEvaluation(key: string, defaultValue: string, context: EvaluationContext): Resolution<string> {
    return this.resolve(key, defaultValue, 'string', context)
  }

  resolveNumberEvaluation(key: string, defaultValue: number, context: EvaluationContext): Resolution<number> {
    return this.resolve(key, defaultValue, 'number', context)
  }

  resolveObjectEvaluation<T>(key: string, defaultValue: T, context: EvaluationContext): Resolution<T> {
    return this.resolve(key, defaultValue, 'object', context)
  }
}
