// The shell: session check, navigation filtered by what the signed-in person or token may do, the project
// switcher (people), and the routes. Sign-in, first-run setup and invitations are open without a session.
import { lazy, Suspense, useEffect, type ReactNode } from 'react'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { ApiError, projectStore } from './api'
import { Link, matchPath, navigate, usePath } from './router'
import { isSignedOut, signOut, switchProject, useSession, type Abilities } from './session'
import { useLiveUpdates } from './live'
import { pageTitle } from './titles'
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
import { StaleFlags } from './pages/StaleFlags'
import { Upcoming } from './pages/Upcoming'
import { AcceptInvitation, ResetPassword, Setup } from './pages/people/PublicForms'
import { Changes, awaitingCountQuery } from './pages/changes/Changes'
import { ChangeRequestPage } from './pages/changes/ChangeRequestPage'

// Pages for admins, people and flags as code load on first visit: most sessions never open them, and the
// first screen's bundle stays small.
const Tokens = lazy(() => import('./pages/Tokens').then((m) => ({ default: m.Tokens })))
const Webhooks = lazy(() => import('./pages/Webhooks').then((m) => ({ default: m.Webhooks })))
const Audit = lazy(() => import('./pages/Audit').then((m) => ({ default: m.Audit })))
const Settings = lazy(() => import('./pages/Settings').then((m) => ({ default: m.Settings })))
const Account = lazy(() => import('./pages/people/Account').then((m) => ({ default: m.Account })))
const Members = lazy(() => import('./pages/people/Members').then((m) => ({ default: m.Members })))
const Users = lazy(() => import('./pages/people/Users').then((m) => ({ default: m.Users })))
const InstanceAudit = lazy(() => import('./pages/people/InstanceAudit').then((m) => ({ default: m.InstanceAudit })))
const Projects = lazy(() => import('./pages/people/Projects').then((m) => ({ default: m.Projects })))
const ImportExport = lazy(() => import('./pages/ImportExport').then((m) => ({ default: m.ImportExport })))
const Compare = lazy(() => import('./pages/Compare').then((m) => ({ default: m.Compare })))
const Experiments = lazy(() => import('./pages/experiments/Experiments').then((m) => ({ default: m.Experiments })))
const ExperimentPage = lazy(() => import('./pages/experiments/ExperimentPage').then((m) => ({ default: m.ExperimentPage })))
const Metrics = lazy(() => import('./pages/experiments/Metrics').then((m) => ({ default: m.Metrics })))

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
  { pattern: '/changes', allowed: (c) => c.readFlags, render: () => <Changes /> },
  { pattern: '/changes/:id', allowed: (c) => c.readFlags, render: (p) => <ChangeRequestPage id={p.id} /> },
  { pattern: '/experiments', allowed: (c) => c.readFlags, render: () => <Experiments /> },
  { pattern: '/experiments/:key', allowed: (c) => c.readFlags, render: (p) => <ExperimentPage experimentKey={p.key} /> },
  { pattern: '/experiment-metrics', allowed: (c) => c.readFlags, render: () => <Metrics /> },
  { pattern: '/tokens', allowed: (c) => c.admin, render: () => <Tokens /> },
  { pattern: '/webhooks', allowed: (c) => c.admin, render: () => <Webhooks /> },
  { pattern: '/audit', allowed: (c) => c.admin, render: () => <Audit /> },
  { pattern: '/settings', allowed: (c) => c.admin, render: () => <Settings /> },
  { pattern: '/import-export', allowed: (c) => c.readFlags, render: () => <ImportExport /> },
  { pattern: '/compare', allowed: (c) => c.readFlags || c.readConfigs, render: () => <Compare /> },
  { pattern: '/members', allowed: (c) => c.admin, render: () => <Members /> },
]

/** Pages of the person rather than of a project: open without a project picked. */
const PERSON_ROUTES: Route[] = [
  { pattern: '/account', allowed: () => true, render: () => <Account /> },
  { pattern: '/users', allowed: (c) => c.instanceAdmin, render: () => <Users /> },
  { pattern: '/instance-audit', allowed: (c) => c.instanceAdmin, render: () => <InstanceAudit /> },
  { pattern: '/projects', allowed: (c) => c.instanceAdmin, render: () => <Projects /> },
]

const NAV: { to: string; label: string; allowed: (c: Abilities) => boolean; match: string[] }[] = [
  { to: '/', label: 'Flags', allowed: (c) => c.readFlags, match: ['/', '/flags/:key', '/stale', '/archived'] },
  { to: '/schedules', label: 'Upcoming', allowed: (c) => c.readFlags, match: ['/schedules'] },
  { to: '/changes', label: 'Changes', allowed: (c) => c.readFlags, match: ['/changes', '/changes/:id'] },
  { to: '/experiments', label: 'Experiments', allowed: (c) => c.readFlags, match: ['/experiments', '/experiments/:key'] },
  { to: '/experiment-metrics', label: 'Metrics', allowed: (c) => c.readFlags, match: ['/experiment-metrics'] },
  { to: '/configs', label: 'Configs', allowed: (c) => c.readConfigs, match: ['/configs', '/configs/:key'] },
  { to: '/segments', label: 'Segments', allowed: (c) => c.writeFlags, match: ['/segments', '/segments/:key'] },
  { to: '/import-export', label: 'Import / export', allowed: (c) => c.readFlags, match: ['/import-export'] },
  { to: '/compare', label: 'Compare environments', allowed: (c) => c.readFlags || c.readConfigs, match: ['/compare'] },
  { to: '/tokens', label: 'Tokens', allowed: (c) => c.admin, match: ['/tokens'] },
  { to: '/webhooks', label: 'Webhooks', allowed: (c) => c.admin, match: ['/webhooks'] },
  { to: '/audit', label: 'Audit log', allowed: (c) => c.admin, match: ['/audit'] },
  { to: '/settings', label: 'Settings', allowed: (c) => c.admin, match: ['/settings'] },
  { to: '/members', label: 'Members', allowed: (c) => c.admin, match: ['/members'] },
]
const PERSON_NAV: typeof NAV = [
  { to: '/users', label: 'Users', allowed: (c) => c.instanceAdmin, match: ['/users'] },
  { to: '/instance-audit', label: 'Instance log', allowed: (c) => c.instanceAdmin, match: ['/instance-audit'] },
  { to: '/projects', label: 'Projects', allowed: (c) => c.instanceAdmin, match: ['/projects'] },
  { to: '/account', label: 'Account', allowed: () => true, match: ['/account'] },
]

export function App() {
  const path = usePath()
  const invite = matchPath('/invite/:token', path)
  const reset = matchPath('/reset/:token', path)
  if (path === '/setup') return <Setup />
  if (invite) return <AcceptInvitation token={invite.token} />
  if (reset) return <ResetPassword token={reset.token} />
  return <Shell path={path} />
}

function Shell({ path }: { path: string }) {
  const qc = useQueryClient()
  const session = useSession()
  const { token, me, person, can, hasProject } = session
  // One change stream per session and project, once the caller is known good; closed on sign-out.
  useLiveUpdates(
    qc,
    token ?? (person?.project ? `session:${person.project.id}` : null),
    !!me.data && hasProject && (can.readFlags || can.readConfigs),
  )

  const signedOut = !token && isSignedOut(me.error)
  useEffect(() => {
    if (signedOut && path !== '/signin')
      navigate(`/signin${path !== '/' ? `?return_to=${encodeURIComponent(path)}` : ''}`, { replace: true })
  }, [signedOut, path])
  // A person with no project picked (or one they can no longer see) gets their first project.
  const projects = person?.projects
  const badChoice =
    !token && !!session.projectChoice && me.error instanceof ApiError && (me.error.status === 404 || me.error.status === 403)
  useEffect(() => {
    if (badChoice) projectStore.set(null)
    else if (projects?.length && !person?.project) projectStore.set(projects[0].slug)
  }, [badChoice, projects, person?.project])
  useEffect(() => {
    document.title = pageTitle(signedOut ? '/signin' : path)
  }, [signedOut, path])

  if (path === '/signin' || signedOut) return <SignIn />
  if (me.isLoading || badChoice) return <Loading label={token ? 'Checking your token…' : 'Loading…'} />
  if (me.isError) {
    return (
      <main className="center-page">
        <div className="card narrow-card">
          <ErrorMessage error={me.error} title={token ? 'Could not read this token' : 'Could not read your account'} />
          <SignOutButton />
        </div>
      </main>
    )
  }

  const projectNav = hasProject ? NAV.filter((n) => n.allowed(can)) : []
  const nav = [...projectNav, ...(person ? PERSON_NAV.filter((n) => n.allowed(can)) : [])]
  let content: ReactNode = person && !hasProject ? <NoProject /> : <NotFound />
  for (const r of person ? [...PERSON_ROUTES, ...ROUTES] : ROUTES) {
    const params = matchPath(r.pattern, path)
    if (!params) continue
    if (ROUTES.includes(r) && !hasProject) break
    content = r.allowed(can) ? r.render(params) : path === '/' && nav.length ? <Redirect to={nav[0].to} /> : <NoAccess person={!!person} />
    break
  }

  return (
    <div className="shell">
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <aside className="sidebar">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true">
            ⚑
          </span>
          <span className="brand-name">Flagship</span>
          {person ? (
            <ProjectSwitcher />
          ) : (
            <span className="brand-project" title={session.project.data ? `Project id ${session.project.data.id}` : undefined}>
              {session.project.data?.name ?? (me.data as { project_id?: string } | undefined)?.project_id}
            </span>
          )}
          <LiveStatus />
        </div>
        <nav className="nav" aria-label="Main">
          {nav.map((n) => {
            const active = n.match.some((m) => matchPath(m, path))
            return (
              <Link key={n.to} to={n.to} className={active ? 'nav-link active' : 'nav-link'} aria-current={active ? 'page' : undefined}>
                {n.label}
                {n.to === '/changes' && <AwaitingBadge />}
              </Link>
            )
          })}
        </nav>
        <div className="session-box">
          <div className="session-name">
            <span className="muted small">Signed in as</span>
            <strong>{session.signedInAs}</strong>{' '}
            {person ? (
              <span className="small muted">{person.user.email}</span>
            ) : (
              <code className="small">{(me.data as { token_prefix?: string } | undefined)?.token_prefix}</code>
            )}
          </div>
          {person ? (
            <ul className="chips" aria-label="Your roles">
              <li className="chip">instance: {person.user.instance_role}</li>
              {person.project && <li className="chip">project: {person.project.role}</li>}
            </ul>
          ) : (
            <ul className="chips" aria-label="Token permissions">
              {(me.data as { permissions?: string[] } | undefined)?.permissions?.map((p) => (
                <li key={p} className="chip">
                  {p === '*' ? '* (admin)' : p}
                </li>
              ))}
            </ul>
          )}
          <SignOutButton />
        </div>
      </aside>
      <main id="main" className="main" tabIndex={-1}>
        <Suspense fallback={<Loading label="Loading…" />}>{content}</Suspense>
      </main>
    </div>
  )
}

/** The person's projects; picking one re-reads everything for it (sent as Flagship-Project). */
function ProjectSwitcher() {
  const qc = useQueryClient()
  const { person } = useSession()
  const projects = person?.projects ?? []
  if (!projects.length) return <span className="brand-project muted">No project</span>
  return (
    <label className="project-switcher">
      <span className="sr-only">Project</span>
      <select aria-label="Project" value={person?.project?.slug ?? ''} onChange={(e) => switchProject(qc, e.target.value)}>
        {projects.map((p) => (
          <option key={p.id} value={p.slug}>
            {p.name}
          </option>
        ))}
      </select>
    </label>
  )
}

function NoProject() {
  return (
    <div className="state state-empty">
      <p className="state-title">You are not a member of any project yet</p>
      <p className="muted">Ask a project admin to add you, or an instance admin to create a project.</p>
    </div>
  )
}

function SignOutButton() {
  const qc = useQueryClient()
  return (
    <button type="button" className="btn btn-small" onClick={() => void signOut(qc)}>
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

function NoAccess({ person }: { person: boolean }) {
  return (
    <div className="state state-empty">
      <p className="state-title">{person ? 'Your role cannot open this page' : 'This token cannot open this page'}</p>
      <p className="muted">
        {person ? 'Ask a project admin for the needed role.' : 'Sign in with a token that has the needed permission.'}
      </p>
    </div>
  )
}

/** The live count of change requests awaiting the signed-in person's review. */
function AwaitingBadge() {
  const count = useQuery(awaitingCountQuery())
  return count.data ? (
    <span className="badge" aria-label={`${count.data} awaiting your review`}>
      {' '}
      {count.data}
    </span>
  ) : null
}
