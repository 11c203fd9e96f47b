// The statistics, loaded on first use. @stdlib's distributions are about 2.4 MB of heap and a thousand modules
// that only experiment results and running release plans need; a service that only serves evaluations never
// loads them (memory and start time: docs/performance.md, 2026-11-29).
// The module loader keeps what it loaded: a second call costs a lookup, not a second load.
export type Statistics = typeof import('./index')

export const statistics = (): Promise<Statistics> => import('./index')
