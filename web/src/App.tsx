// The shell: session check, navigation filtered by the token's permissions, and the routes.
import { useEffect, type ReactNode } from 'react'
import { useQueryClient } from '@tanstack/react-query'
import { Link, matchPath, navigate, usePath } from './router'
import { signOut, useSession, type Abilities } from './session'
import { useLiveUpdates } from './live'
import { LiveStatus } from './components/LiveStatus'
import { ErrorMessage } from './components/ErrorMessage'
import { Loading } from './components/State'
import { SignIn } from './pages/SignIn'
import { Flags } from './pages/Flags'
import { FlagPage } from './pages/Flag'
import { Configs } from './pages/Configs'
import { ConfigPage } from './pages/Config'
import { Segments } from './pages/Segments'
import { SegmentPage } from './pages/Segment'
import { Tokens } from './pages/Tokens'
import { Webhooks } from './pages/Webhooks'
import { Audit } from './pages/Audit'
import { Settings } from './pages/Settings'
import { StaleFlags } from './pages/StaleFlags'
import { Upcoming } from './pages/Upcoming'
import { ImportExport } from './pages/ImportExport'
import { Compare } from './pages/Compare'

interface Route {
  pattern: string
  allowed: (can: Abilities) => boolean
  render: (params: Record<string, string>) => ReactNode
}

const ROUTES: Route[] = [
  { pattern: '/', allowed: (c) => c.readFlags, render: () => <Flags /> },
  { pattern: '/flags/:key', allowed: (c) => c.readFlags, render: (p) => <FlagPage flagKey={p.key} /> },
  { pattern: '/stale', allowed: (c) => c.readFlags, render: () => <StaleFlags /> },
  { pattern: '/archived', allowed: (c) => c.readFlags, render: () => <Flags archived /> },
  { pattern: '/schedules', allowed: (c) => c.readFlags, render: () => <Upcoming /> },
  { pattern: '/configs', allowed: (c) => c.readConfigs, render: () => <Configs /> },
  { pattern: '/configs/:key', allowed: (c) => c.readConfigs, render: (p) => <ConfigPage configKey={p.key} /> },
  { pattern: '/segments', allowed: (c) => c.writeFlags, render: () => <Segments /> },
  { pattern: '/segments/:key', allowed: (c) => c.writeFlags, render: (p) => <SegmentPage segmentKey={p.key} /> },
  { pattern: '/tokens', allowed: (c) => c.admin, render: () => <Tokens /> },
  { pattern: '/webhooks', allowed: (c) => c.admin, render: () => <Webhooks /> },
  { pattern: '/audit', allowed: (c) => c.admin, render: () => <Audit /> },
  { pattern: '/settings', allowed: (c) => c.admin, render: () => <Settings /> },
  { pattern: '/import-export', allowed: (c) => c.readFlags, render: () => <ImportExport /> },
  { pattern: '/compare', allowed: (c) => c.readFlags || c.readConfigs, render: () => <Compare /> },
]

const NAV: { to: string; label: string; allowed: (c: Abilities) => boolean; match: string[] }[] = [
  { to: '/', label: 'Flags', allowed: (c) => c.readFlags, match: ['/', '/flags/:key', '/stale', '/archived'] },
  { to: '/schedules', label: 'Upcoming', allowed: (c) => c.readFlags, match: ['/schedules'] },
  { to: '/configs', label: 'Configs', allowed: (c) => c.readConfigs, match: ['/configs', '/configs/:key'] },
  { to: '/segments', label: 'Segments', allowed: (c) => c.writeFlags, match: ['/segments', '/segments/:key'] },
  { to: '/import-export', label: 'Import / export', allowed: (c) => c.readFlags, match: ['/import-export'] },
  { to: '/compare', label: 'Compare environments', allowed: (c) => c.readFlags || c.readConfigs, match: ['/compare'] },
  { to: '/tokens', label: 'Tokens', allowed: (c) => c.admin, match: ['/tokens'] },
  { to: '/webhooks', label: 'Webhooks', allowed: (c) => c.admin, match: ['/webhooks'] },
  { to: '/audit', label: 'Audit log', allowed: (c) => c.admin, match: ['/audit'] },
  { to: '/settings', label: 'Settings', allowed: (c) => c.admin, match: ['/settings'] },
]

export function App() {
  const path = usePath()
  const session = useSession()
  const { token, me, can } = session
  // One change stream per session, once the token is known good; closed on sign-out (the token goes).
  useLiveUpdates(useQueryClient(), token, !!me.data && (can.readFlags || can.readConfigs))

  useEffect(() => {
    if (!token && path !== '/signin') navigate('/signin', { replace: true })
  }, [token, path])

  if (!token || path === '/signin') return <SignIn />
  if (me.isLoading) return <Loading label="Checking your token…" />
  if (me.isError) {
    return (
      <main className="center-page">
        <div className="card narrow-card">
          <ErrorMessage error={me.error} title="Could not read this token" />
          <SignOutButton />
        </div>
      </main>
    )
  }

  const nav = NAV.filter((n) => n.allowed(can))
  let content: ReactNode = <NotFound />
  for (const r of ROUTES) {
    const params = matchPath(r.pattern, path)
    if (!params) continue
    content = r.allowed(can) ? r.render(params) : path === '/' && nav.length ? <Redirect to={nav[0].to} /> : <NoAccess />
    break
  }

  return (
    <div className="shell">
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <aside className="sidebar">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true">⚑</span>
          <span className="brand-name">Flagship</span>
          <span className="brand-project" title={session.project.data ? `Project id ${session.project.data.id}` : undefined}>
            {session.project.data?.name ?? me.data?.project_id}
          </span>
          <LiveStatus />
        </div>
        <nav className="nav" aria-label="Main">
          {nav.map((n) => {
            const active = n.match.some((m) => matchPath(m, path))
            return (
              <Link key={n.to} to={n.to} className={active ? 'nav-link active' : 'nav-link'} aria-current={active ? 'page' : undefined}>
                {n.label}
              </Link>
            )
          })}
        </nav>
        <div className="session-box">
          <div className="session-name">
            <span className="muted small">Signed in as</span>
            <strong>{me.data?.name}</strong> <code className="small">{me.data?.token_prefix}</code>
          </div>
          <ul className="chips" aria-label="Token permissions">
            {me.data?.permissions.map((p) => (
              <li key={p} className="chip">
                {p === '*' ? '* (admin)' : p}
              </li>
            ))}
          </ul>
          <SignOutButton />
        </div>
      </aside>
      <main id="main" className="main" tabIndex={-1}>
        {content}
      </main>
    </div>
  )
}

function SignOutButton() {
  const qc = useQueryClient()
  return (
    <button type="button" className="btn btn-small" onClick={() => signOut(qc)}>
      Sign out
    </button>
  )
}

function Redirect({ to }: { to: string }) {
  useEffect(() => navigate(to, { replace: true }), [to])
  return null
}

function NotFound() {
  return (
    <div className="state state-empty">
      <p className="state-title">Page not found</p>
      <Link to="/">Go to the start page</Link>
    </div>
  )
}

function NoAccess() {
  return (
    <div className="state state-empty">
      <p className="state-title">This token cannot open this page</p>
      <p className="muted">Sign in with a token that has the needed permission.</p>
    </div>
  )
}
