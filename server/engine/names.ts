// Name rules (docs/behaviour.md §2), shared by the engine's validation, the services and the console.

/** Keys of flags, configs, segments, and variant names. */
export const KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/
/** Environment names, project slugs and flag tags. */
export const ENV_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/
