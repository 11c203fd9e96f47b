// Real traffic for release-plan tests: new users evaluate a flag over HTTP (the server records their
// exposures: inside the rollout or not), then those the test's error rate picks send an `error` track event.
// Deterministic: user i is picked when a fixed hash of i falls below the rate of the arm it was served.
//
// The users are a fair sample at every step, wherever a step begins: user i's id is the first of
// `<prefix>-<i>`, `<prefix>-<i>.1`, ... whose rollout bucket lies in the one-percent stratum (61 i mod 100),
// so any run of consecutive users splits at every whole percentage as evenly as a run of that length can.
// Plain ids (`<prefix>-<i>`) are not: the buckets of some runs of them lean one way by chance (for flag
// `healthy`, 57 % of users 1650-2249 are inside 50 %), and a step that began in such a run was paused by the
// monitor's sample-ratio check (a true mismatch of that sample), so the outcome hung on where the step began.
import { bucketOf } from '../../server/engine/rollout'
import { api } from './server'

const pick = (i: number) => (((i * 2654435761) >>> 0) % 1000) / 1000

/** User i's id for `flag`: the first `<prefix>-<i>[.<n>]` whose bucket is in [61 i mod 100, + 1). */
export function userId(flag: string, prefix: string, i: number): string {
  const stratum = (i * 61) % 100
  for (let n = 0; ; n++) {
    const id = n ? `${prefix}-${i}.${n}` : `${prefix}-${i}`
    if (Math.floor(bucketOf(flag, id)) === stratum) return id
  }
}

export interface Traffic {
  /** the next user's number (user n's id: userId(flag, prefix, n)) */
  next: number
  inside: number
  outside: number
}

/** `count` new users evaluate `flag` in production; each sends `error` with probability rate(inside). */
export async function drive(
  srv: { url: string },
  token: string,
  flag: string,
  t: Traffic,
  count: number,
  rate: (inside: boolean) => number,
  prefix = flag,
): Promise<void> {
  const events: object[] = []
  const users = Array.from({ length: count }, (_, k) => t.next + k)
  t.next += count
  for (let k = 0; k < users.length; k += 25) {
    await Promise.all(
      users.slice(k, k + 25).map(async (i) => {
        const context = { user_id: userId(flag, prefix, i), environment: 'production' }
        const r = await api(srv, 'GET', `/api/v1/flags/${flag}?context=${encodeURIComponent(JSON.stringify(context))}`, { token })
        if (r.status !== 200) throw new Error(`evaluation: ${r.status} ${r.text}`)
        const inside = r.body.value === true
        if (inside) t.inside++
        else t.outside++
        if (pick(i) < rate(inside)) events.push({ type: 'track', key: 'error', context })
      }),
    )
  }
  if (events.length) {
    const r = await api(srv, 'POST', '/api/v1/events', { token, body: { events } })
    if (r.status !== 202) throw new Error(`events: ${r.status} ${r.text}`)
  }
}
