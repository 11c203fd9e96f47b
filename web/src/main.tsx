import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { ApiError, tokenStore } from './api'
import { App } from './App'
import { signOut } from './session'
import './styles/index.css'

/** A 401 on any call means the token was revoked or expired, or the person's session ended (expired,
 *  signed out elsewhere, user disabled): end it here too and say why. A 401 reading who is signed in is
 *  just "nobody": the shell shows the sign-in page. */
function onError(error: unknown, queryKey?: readonly unknown[]) {
  if (!(error instanceof ApiError) || error.status !== 401) return
  if (tokenStore.get()) {
    void signOut(
      queryClient,
      error.code === 'TOKEN_EXPIRED' ? 'Your token has expired. Sign in with another token.' : `Your session ended: ${error.message}`,
    )
  } else if (queryKey?.[0] !== 'me' || queryKey.length < 3) {
    void signOut(queryClient, 'Your session ended. Sign in again.')
  }
}

const queryClient: QueryClient = new QueryClient({
  queryCache: new QueryCache({ onError: (error, query) => onError(error, query.queryKey) }),
  mutationCache: new MutationCache({ onError: (error) => onError(error) }),
  defaultOptions: {
    queries: {
      staleTime: 0,
      retry: (count, error) => (error instanceof ApiError && error.status >= 400 && error.status < 500 ? false : count < 2),
    },
  },
})

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <App />
    </QueryClientProvider>
  </StrictMode>,
)
