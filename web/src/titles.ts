// The document title of each page ("checkout-v2 · Flag · Flagship"), so tabs, history and bookmarks tell
// pages apart. Paths not listed keep the console's name.
import { matchPath } from './router'

const TITLES: [pattern: string, title: (p: Record<string, string>) => string][] = [
  ['/', () => 'Flags'],
  ['/flags/:key', (p) => `${p.key} · Flag`],
  ['/stale', () => 'Stale flags'],
  ['/archived', () => 'Archived flags'],
  ['/schedules', () => 'Upcoming changes'],
  ['/configs', () => 'Configs'],
  ['/configs/:key', (p) => `${p.key} · Config`],
  ['/segments', () => 'Segments'],
  ['/segments/:key', (p) => `${p.key} · Segment`],
  ['/experiments', () => 'Experiments'],
  ['/experiments/:key', (p) => `${p.key} · Experiment`],
  ['/experiment-metrics', () => 'Metrics'],
  ['/tokens', () => 'Tokens'],
  ['/webhooks', () => 'Webhooks'],
  ['/audit', () => 'Audit log'],
  ['/settings', () => 'Settings'],
  ['/signin', () => 'Sign in'],
]

export const APP_NAME = 'Flagship'

export function pageTitle(path: string): string {
  for (const [pattern, title] of TITLES) {
    const params = matchPath(pattern, path)
    if (params) return `${title(params)} · ${APP_NAME}`
  }
  return `${APP_NAME} console`
}
