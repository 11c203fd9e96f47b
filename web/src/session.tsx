// Who is signed in. Two ways: a person's session (an HttpOnly cookie the page never sees; GET /api/v1/me
// says who, with the project picked in the switcher sent as Flagship-Project), or a pasted API token (kept
// in sessionStorage, see api.ts) for automation. Both are described by GET /api/v1/me.
import { useSyncExternalStore } from 'react'
import { useQuery, type QueryClient } from '@tanstack/react-query'
import { ApiError, api, projectStore, tokenStore, type Me, type Permission } from './api'
import { sessionQueries } from './queries'
import { navigate } from './router'
import { canWriteIn, teamsApi, type SessionMe } from './teams-api'

export interface Abilities {
  readFlags: boolean
  writeFlags: boolean
  readConfigs: boolean
  writeConfigs: boolean
  /** permission `*`: tokens, webhooks, audit, project settings, members */
  admin: boolean
  /** instance owner or admin: the Users and Projects pages */
  instanceAdmin: boolean
  /** whether changes to this environment are allowed (the flag editor shows the others read-only) */
  writeEnv: (environment: string) => boolean
  /** write:flags in every environment of the project: creating, archiving, deleting a flag or changing its
   *  own fields affects them all (teams.md §4) */
  writeEverywhere: boolean
}

export function abilitiesOf(
  permissions: readonly Permission[],
  writeEnv?: (environment: string) => boolean,
  instanceAdmin = false,
): Abilities {
  const admin = permissions.includes('*')
  const has = (p: Permission) => admin || permissions.includes(p)
  const writeFlags = has('write:flags')
  return {
    readFlags: has('read:flags'),
    writeFlags,
    readConfigs: has('read:configs'),
    writeConfigs: has('write:configs'),
    admin,
    instanceAdmin,
    writeEnv: (env) => writeFlags && (writeEnv ? writeEnv(env) : true),
    writeEverywhere: writeFlags,
  }
}

/** The abilities narrowed to the project's environments: someone without write rights in one of them
 *  cannot make changes that affect all (a config's value, a flag's own fields, creating or deleting). */
function withinEnvironments(can: Abilities, environments: readonly string[]): Abilities {
  const everywhere = environments.every(can.writeEnv)
  return { ...can, writeEverywhere: can.writeFlags && everywhere, writeConfigs: can.writeConfigs && everywhere }
}

/** GET /me as either kind of caller answers it. */
export type AnyMe = (Me & { kind?: 'token'; environments?: string[] | null }) | SessionMe
export const isSessionMe = (me: AnyMe | undefined): me is SessionMe => (me as SessionMe | undefined)?.kind === 'user'

function abilitiesOfMe(me: AnyMe | undefined): Abilities {
  if (!me) return abilitiesOf([])
  if (isSessionMe(me)) {
    const p = me.project
    const instanceAdmin = me.user.instance_role === 'owner' || me.user.instance_role === 'admin'
    return abilitiesOf(me.permissions ?? [], p ? (env) => canWriteIn(p.role, p.environments ?? {}, env) : () => false, instanceAdmin)
  }
  const scoped = me.environments
  return abilitiesOf(me.permissions, scoped?.length ? (env) => scoped.includes(env) : undefined)
}

export const useToken = () => useSyncExternalStore(tokenStore.subscribe, tokenStore.get)
export const useProjectChoice = () => useSyncExternalStore(projectStore.subscribe, projectStore.get)

export function useSession() {
  const token = useToken()
  const projectChoice = useProjectChoice()
  // Keyed by how and for which project, so a new sign-in or another project never shows the old answer.
  const me = useQuery({
    queryKey: ['me', token ? 'token' : 'session', projectChoice],
    queryFn: () => api.me() as Promise<AnyMe>,
    staleTime: 60_000,
  })
  const person = isSessionMe(me.data) ? me.data : undefined
  const hasProject = !!token || !!person?.project
  const project = useQuery({ ...sessionQueries.project(), enabled: !!me.data && hasProject })
  return {
    token,
    me,
    person,
    /** the session's project choice (people only) */
    projectChoice,
    project,
    hasProject,
    /** who is signed in, for the sidebar */
    signedInAs: person ? person.user.name || person.user.email : (me.data as Me | undefined)?.name,
    can: withinEnvironments(abilitiesOfMe(me.data), project.data?.environments ?? []),
  }
}

/** Whether a failed GET /me means nobody is signed in (rather than an outage). */
export const isSignedOut = (error: unknown): boolean => error instanceof ApiError && error.status === 401

/** Why the last session ended when the user did not sign out (shown on the sign-in page). */
let endedReason: string | null = null
export const takeEndedReason = () => {
  const r = endedReason
  endedReason = null
  return r
}

export async function signOut(queryClient: QueryClient, reason?: string) {
  endedReason = reason ?? null
  if (tokenStore.get()) tokenStore.set(null)
  // A person's session ends on the server too (the cookie alone is not trusted to go).
  else if (!reason) await teamsApi.logout().catch(() => undefined)
  queryClient.clear()
  navigate('/signin', { replace: true, force: true })
}

/** Picks another project: every read is of the old one, so all are dropped and read again. */
export function switchProject(queryClient: QueryClient, project: string) {
  projectStore.set(project)
  queryClient.clear()
  navigate('/', { force: true })
}

export { api }
