// Validation of what docs/lifecycle.md §1-3 add to a flag: variants and every reference to them (default
// and off variant, rules, individual overrides, environment overrides, a weighted distribution), the shape
// of prerequisites (whether the flags they name exist, and cycles, need the project: the flag service
// checks those), and the metadata (description, tags, owner).
import { checkJsonLimits } from './limits'
import { ENV_PATTERN, KEY_PATTERN } from './names'
import type { ValidationIssue } from './types'
import { typeOf } from './value-type'
import { isObject } from './is-object'

export const MAX_VARIANTS = 50
export const MAX_PREREQUISITES = 20
export const MAX_DESCRIPTION = 2000
export const MAX_TAGS = 20
export const MAX_OWNER = 200

const present = (v: unknown): boolean => v !== undefined && v !== null

/** Every place of a flag that names a variant, with its path: what a removed variant would leave dangling. */
export function variantReferences(flag: Record<string, unknown>): { path: string; name: unknown }[] {
  const refs: { path: string; name: unknown }[] = []
  if (present(flag.default_variant)) refs.push({ path: 'default_variant', name: flag.default_variant })
  if (present(flag.off_variant)) refs.push({ path: 'off_variant', name: flag.off_variant })
  const targeting = isObject(flag.targeting) ? flag.targeting : {}
  if (Array.isArray(targeting.rules))
    targeting.rules.forEach(
      (r, i) => isObject(r) && r.variant !== undefined && refs.push({ path: `targeting.rules[${i}].variant`, name: r.variant }),
    )
  if (isObject(targeting.overrides))
    for (const [user, name] of Object.entries(targeting.overrides)) refs.push({ path: `targeting.overrides.${user}`, name })
  const rollout = isObject(targeting.rollout) ? targeting.rollout : {}
  if (Array.isArray(rollout.distribution))
    rollout.distribution.forEach(
      (s, i) => isObject(s) && refs.push({ path: `targeting.rollout.distribution[${i}].variant`, name: s.variant }),
    )
  if (isObject(flag.environments))
    for (const [env, o] of Object.entries(flag.environments))
      isObject(o) && o.variant !== undefined && refs.push({ path: `environments.${env}.variant`, name: o.variant })
  return refs
}

function validateDistribution(distribution: unknown, issues: ValidationIssue[]): void {
  const path = 'targeting.rollout.distribution'
  if (!Array.isArray(distribution) || distribution.length === 0)
    return void issues.push({ path, message: 'must be a non-empty array of { variant, weight }' })
  if (distribution.length > MAX_VARIANTS) return void issues.push({ path, message: `must hold at most ${MAX_VARIANTS} slices` })
  let total = 0
  distribution.forEach((slice, i) => {
    const w = isObject(slice) ? slice.weight : undefined
    if (typeof w !== 'number' || !Number.isFinite(w) || w < 0 || w > 100 || Math.abs(w * 100 - Math.round(w * 100)) > 1e-6) {
      issues.push({ path: `${path}[${i}].weight`, message: 'must be a number from 0 to 100 with at most two decimals' })
    } else total += Math.round(w * 100)
  })
  if (total !== 10000 && !issues.some((i) => i.path.startsWith(path)))
    issues.push({ path, message: `weights must sum to 100 (they sum to ${total / 100})` })
}

/** Variants and their references; `value` of a flag with variants mirrors default_variant (the service sets it). */
export function validateVariants(flag: Record<string, unknown>, issues: ValidationIssue[]): void {
  const variants = flag.variants
  const targeting = isObject(flag.targeting) ? flag.targeting : {}
  const rollout = isObject(targeting.rollout) ? targeting.rollout : undefined
  if (rollout && present(rollout.distribution)) {
    if (present(rollout.percentage))
      issues.push({ path: 'targeting.rollout', message: 'takes either percentage or distribution, not both' })
    validateDistribution(rollout.distribution, issues)
  }
  if (!present(variants)) {
    for (const ref of variantReferences(flag)) {
      // Overrides of a flag without variants are values, not names.
      if (!ref.path.startsWith('targeting.overrides.'))
        issues.push({ path: ref.path, message: 'names a variant, but the flag has no variants' })
    }
    return
  }
  if (!isObject(variants)) return void issues.push({ path: 'variants', message: 'must be an object mapping variant names to values' })
  const names = Object.keys(variants)
  if (names.length === 0) issues.push({ path: 'variants', message: 'must name at least one variant (or be null for none)' })
  if (names.length > MAX_VARIANTS) issues.push({ path: 'variants', message: `must hold at most ${MAX_VARIANTS} variants` })
  let type: string | undefined
  for (const name of names.slice(0, MAX_VARIANTS)) {
    if (!KEY_PATTERN.test(name))
      issues.push({ path: `variants.${name}`, message: 'is not a valid variant name (letters, digits, . _ -; at most 128)' })
    const v = variants[name]
    issues.push(...checkJsonLimits(v, `variants.${name}`))
    if (v === null) continue
    type ??= typeOf(v as never)
    if (typeOf(v as never) !== type)
      issues.push({
        path: `variants.${name}`,
        message: `must be ${type === 'object' || type === 'array' ? 'an' : 'a'} ${type}, like the other variants`,
      })
  }
  if (!present(flag.default_variant)) issues.push({ path: 'default_variant', message: 'is required with variants' })
  for (const ref of variantReferences(flag)) {
    if (typeof ref.name !== 'string' || !Object.hasOwn(variants, ref.name))
      issues.push({
        path: ref.path,
        message: `unknown variant ${JSON.stringify(ref.name) ?? 'undefined'}; the flag has: ${names.join(', ')}`,
      })
  }
  if (Array.isArray(targeting.rules)) {
    targeting.rules.forEach(
      (r, i) =>
        isObject(r) &&
        r.value !== undefined &&
        issues.push({ path: `targeting.rules[${i}].value`, message: 'a flag with variants serves variants: use `variant`' }),
    )
  }
  if (isObject(flag.environments)) {
    for (const [env, o] of Object.entries(flag.environments))
      isObject(o) &&
        o.value !== undefined &&
        issues.push({ path: `environments.${env}.value`, message: 'a flag with variants serves variants: use `variant`' })
  }
}

/** The shape of `prerequisites`: [{ key, variant } or { key, value }], each key once, not the flag itself. */
export function validatePrerequisiteShape(flag: Record<string, unknown>, issues: ValidationIssue[]): void {
  const list = flag.prerequisites
  if (!present(list)) return
  if (!Array.isArray(list))
    return void issues.push({ path: 'prerequisites', message: 'must be an array of { key, variant } or { key, value }' })
  if (list.length > MAX_PREREQUISITES)
    return void issues.push({ path: 'prerequisites', message: `must hold at most ${MAX_PREREQUISITES} prerequisites` })
  const seen = new Set<string>()
  list.forEach((p, i) => {
    const path = `prerequisites[${i}]`
    if (!isObject(p)) return void issues.push({ path, message: 'must be an object { key, variant } or { key, value }' })
    if (typeof p.key !== 'string' || !KEY_PATTERN.test(p.key)) issues.push({ path: `${path}.key`, message: 'must be a flag key' })
    else if (p.key === flag.key) issues.push({ path: `${path}.key`, message: `"${p.key}": flag "${p.key}" cannot require itself` })
    else if (seen.has(p.key)) issues.push({ path: `${path}.key`, message: `"${p.key}" is required twice` })
    else seen.add(p.key)
    const hasVariant = p.variant !== undefined
    const hasValue = p.value !== undefined
    if (hasVariant === hasValue) issues.push({ path, message: 'must give exactly one of variant or value' })
    else if (hasVariant && typeof p.variant !== 'string') issues.push({ path: `${path}.variant`, message: 'must be a variant name' })
    else if (hasValue) issues.push(...checkJsonLimits(p.value, `${path}.value`))
  })
}

/** description, tags, owner (docs/lifecycle.md §3), client_side. */
export function validateMetadata(flag: Record<string, unknown>, issues: ValidationIssue[]): void {
  const { description, tags, owner, client_side } = flag
  if (present(client_side) && typeof client_side !== 'boolean') issues.push({ path: 'client_side', message: 'must be true or false' })
  if (present(description) && (typeof description !== 'string' || description.length > MAX_DESCRIPTION))
    issues.push({ path: 'description', message: `must be a string of at most ${MAX_DESCRIPTION} characters` })
  if (present(owner) && (typeof owner !== 'string' || owner.length > MAX_OWNER))
    issues.push({ path: 'owner', message: `must be a string of at most ${MAX_OWNER} characters` })
  if (!present(tags)) return
  if (!Array.isArray(tags)) return void issues.push({ path: 'tags', message: 'must be an array of tags' })
  if (tags.length > MAX_TAGS) return void issues.push({ path: 'tags', message: `must hold at most ${MAX_TAGS} tags` })
  tags.forEach((tag, i) => {
    if (typeof tag !== 'string' || !ENV_PATTERN.test(tag))
      issues.push({ path: `tags[${i}]`, message: 'must match ^[a-z0-9][a-z0-9_-]{0,62}$' })
    else if (tags.indexOf(tag) !== i) issues.push({ path: `tags[${i}]`, message: `"${tag}" is there twice` })
  })
}
