// Real traffic for release-plan tests: new users evaluate a flag over HTTP (the server records their
// exposures: inside the rollout or not), then those the test's error rate picks send an `error` track event.
// Deterministic: user i is picked when a fixed hash of i falls below the rate of the arm it was served.
import { api } from './server'

const pick = (i: number) => (((i * 2654435761) >>> 0) % 1000) / 1000

export interface Traffic {
  /** the next user's number (users are `<prefix>-<n>`) */
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
        const context = { user_id: `${prefix}-${i}`, environment: 'production' }
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
