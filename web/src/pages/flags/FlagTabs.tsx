// The flag list's views: the live flags, only the stale ones (/stale), the archived ones (/archived).
import { Link } from '../../router'

const TABS = [
  { to: '/', label: 'All flags' },
  { to: '/stale', label: 'Stale' },
  { to: '/archived', label: 'Archived' },
] as const

export function FlagTabs({ current }: { current: (typeof TABS)[number]['to'] }) {
  return (
    <nav className="tabs" aria-label="Flag views">
      {TABS.map((t) => (
        <Link key={t.to} to={t.to} className={t.to === current ? 'tab active' : 'tab'} aria-current={t.to === current ? 'page' : undefined}>
          {t.label}
        </Link>
      ))}
    </nav>
  )
}
