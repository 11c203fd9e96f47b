import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { ApiError, tokenStore } from './api'
import { App } from './App'
import { signOut } from './session'
import './styles/index.css'

/** A 401 on any call means the token was revoked or expired: end the session and say why. */
function onError(error: unknown) {
  if (error instanceof ApiError && error.status === 401 && tokenStore.get()) {
    signOut(queryClient, error.code === 'TOKEN_EXPIRED' ? 'Your token has expired. Sign in with another token.' : `Your session ended: ${error.message}`)
  }
}

const queryClient: QueryClient = new QueryClient({
  queryCache: new QueryCache({ onError }),
  mutationCache: new MutationCache({ onError }),
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
