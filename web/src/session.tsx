// The signed-in token: kept in sessionStorage (see api.ts), described by GET /api/v1/me.
import { useSyncExternalStore } from 'react'
import { useQuery, type QueryClient } from '@tanstack/react-query'
import { tokenStore, type Permission } from './api'
import { sessionQueries } from './queries'
import { navigate } from './router'

export interface Abilities {
  readFlags: boolean
  writeFlags: boolean
  readConfigs: boolean
  writeConfigs: boolean
  /** permission `*`: tokens, webhooks, audit, project settings */
  admin: boolean
}

export function abilitiesOf(permissions: readonly Permission[]): Abilities {
  const admin = permissions.includes('*')
  const has = (p: Permission) => admin || permissions.includes(p)
  return { readFlags: has('read:flags'), writeFlags: has('write:flags'), readConfigs: has('read:configs'), writeConfigs: has('write:configs'), admin }
}

export const useToken = () => useSyncExternalStore(tokenStore.subscribe, tokenStore.get)

export function useSession() {
  const token = useToken()
  const me = useQuery({ ...sessionQueries.me(), enabled: !!token })
  const project = useQuery({ ...sessionQueries.project(), enabled: !!token })
  return { token, me, project, can: abilitiesOf(me.data?.permissions ?? []) }
}

/** Why the last session ended when the user did not sign out (shown on the sign-in page). */
let endedReason: string | null = null
export const takeEndedReason = () => {
  const r = endedReason
  endedReason = null
  return r
}

export function signOut(queryClient: QueryClient, reason?: string) {
  endedReason = reason ?? null
  tokenStore.set(null)
  queryClient.clear()
  navigate('/signin', { replace: true, force: true })
}
