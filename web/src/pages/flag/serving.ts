// What a flag serves in each environment, and why, read off its definition (docs/flag-switches.md): an
// environment with an override has its own switch, which replaces the main switch there; the others follow
// the main switch. Pure, so the flag page, the list and the tests share one reading.
import type { Flag, Json, Targeting } from '../../api'
import { preview, valueType } from '../../format'

export interface Serving {
  environment: string
  on: boolean
  /** whether the environment has its own switch (an override) */
  own: boolean
  /** why it is on or off, in words */
  why: string
  /** what it serves, in words */
  serves: string
  /** whose rules decide there: the environment's own, or the flag's */
  rules: 'own' | 'flag'
}

type EnvOverride = { enabled: boolean; value?: Json; variant?: string; targeting?: Targeting | null }

const offValueOf = (flag: Flag): string => {
  if (flag.variants && flag.off_variant) return `variant “${flag.off_variant}”`
  return valueType(flag.value) === 'boolean' ? 'false' : 'null'
}

const hasTargeting = (t: Targeting | null | undefined): boolean =>
  !!t && (!!t.rules?.length || !!t.rollout || !!(t.overrides && Object.keys(t.overrides).length))

function servedWhenOn(flag: Flag, o: EnvOverride | undefined, environment: string): string {
  const own = o && (o.value !== undefined || o.variant !== undefined)
  const base = flag.variants ? `variant “${o?.variant ?? flag.default_variant}”` : preview(own ? o!.value : flag.value)
  const whose = own ? 'this environment’s value' : 'the flag’s value'
  // An environment with its own rules: they decide there, not the flag's (docs/flag-switches.md).
  if (o?.targeting)
    return hasTargeting(o.targeting)
      ? `${environment}’s own rules first, else ${base} (${whose})`
      : `${base} (${whose}; ${environment}’s own rules are empty)`
  return hasTargeting(flag.targeting) ? `the flag’s rules first, else ${base} (${whose})` : `${base} (${whose})`
}

/** Each environment's state, then contexts without an environment (name ''). */
export function servingByEnvironment(flag: Flag, environments: readonly string[]): Serving[] {
  const overrides = (flag.environments ?? {}) as Record<string, EnvOverride>
  const rows = [...environments, ''].map((environment): Serving => {
    const o = environment === '' || !Object.hasOwn(overrides, environment) ? undefined : overrides[environment]
    const on = o ? o.enabled : flag.enabled
    const why = o
      ? `its own switch is ${on ? 'on' : 'off'}${o.enabled !== flag.enabled ? ` (the main switch is ${flag.enabled ? 'on' : 'off'})` : ''}`
      : `follows the main switch (${flag.enabled ? 'on' : 'off'})`
    return {
      environment,
      on,
      own: !!o,
      why,
      serves: on ? servedWhenOn(flag, o, environment) : `the off value, ${offValueOf(flag)}`,
      rules: o?.targeting ? 'own' : 'flag',
    }
  })
  return rows
}

/** Environments whose own switch keeps them on while the main switch is off: what the main switch cannot stop. */
export const onDespiteMainSwitch = (flag: Flag): string[] =>
  Object.entries((flag.environments ?? {}) as Record<string, EnvOverride>)
    .filter(([, o]) => o.enabled)
    .map(([env]) => env)

/** Environment names that read as production: switching them asks first. */
export const isProductionLike = (env: string): boolean => /^(prod|production|live)([-_.].*)?$/i.test(env)
