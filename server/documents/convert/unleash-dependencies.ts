// Unleash dependencies as prerequisites. Unleash: the child is on only when the parent is on for the same
// context (and serves one of `variants`, when listed); `enabled: false` requires the parent to be off; a
// parent that has dependencies of its own, or does not exist, fails them all.
import type { Prerequisite } from '../../engine'
import type { FlagEntry } from '../model'
import { keyOf } from './logic'
import type { UnleashExport } from './unleash-input'

export interface ConvertedFlag {
  name: string
  flag: FlagEntry
  off: string
}

export function unleashPrerequisites(exports: UnleashExport[], flags: ConvertedFlag[], say: (m: string) => void): void {
  const byName = new Map(flags.map((f) => [f.name, f]))
  const seen = new Set<string>()
  const childrenWithDeps = new Set(exports.flatMap((e) => e.dependencies.filter((d) => d.dependencies.length > 0).map((d) => d.feature)))
  for (const { feature, dependencies } of exports.flatMap((e) => e.dependencies)) {
    if (seen.has(feature)) continue
    seen.add(feature)
    const child = byName.get(feature)
    if (child === undefined) continue
    const out: Prerequisite[] = []
    for (const d of dependencies) {
      const parent = byName.get(d.feature)
      const what = `flag ${feature}: its dependency on ${d.feature}`
      if (parent === undefined) {
        say(`${what} was not converted: ${d.feature} is not in the exports (Unleash keeps ${feature} off)`)
        continue
      }
      if (childrenWithDeps.has(d.feature))
        say(
          `${what}: ${d.feature} has dependencies of its own, which Unleash does not follow ` +
            `(it keeps ${feature} off); here they are followed`,
        )
      const withVariants = parent.flag.variants != null
      const named = Object.keys(parent.flag.variants ?? {}).filter((n) => n !== parent.off && parent.flag.variants![n] !== null)
      if (d.enabled === false) {
        out.push(withVariants ? { key: parent.flag.key, variant: parent.off } : { key: parent.flag.key, value: false })
        say(
          `${what} requires it off: here a ${d.feature} that is disabled in the environment fails the requirement, ` +
            'while Unleash counts it as off',
        )
      } else if ((d.variants ?? []).length > 0) {
        if (d.variants!.length > 1)
          say(
            `${what} accepts the variants ${d.variants!.join(', ')}; ` +
              `a prerequisite names one variant, so only ${d.variants![0]} is accepted here`,
          )
        out.push({ key: parent.flag.key, variant: keyOf(d.variants![0]!) })
      } else if (!withVariants) {
        out.push({ key: parent.flag.key, value: true })
      } else if (named.length === 1 && Object.keys(parent.flag.variants!).length === 2) {
        out.push({ key: parent.flag.key, variant: named[0]! })
      } else {
        say(`${what} (on, whatever variant) was not converted: a prerequisite names one variant; ${feature} no longer depends on it`)
      }
    }
    if (out.length > 0) child.flag.prerequisites = [...(child.flag.prerequisites ?? []), ...out]
  }
}
