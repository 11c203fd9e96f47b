// Paste a token; it is checked with GET /api/v1/me and kept in sessionStorage only.
import { useEffect, useState, type FormEvent } from 'react'
import { useQueryClient } from '@tanstack/react-query'
import { api, keys, tokenStore } from '../api'
import { navigate } from '../router'
import { takeEndedReason, useToken } from '../session'
import { ErrorMessage } from '../components/ErrorMessage'

export function SignIn() {
  const qc = useQueryClient()
  const existing = useToken()
  const [token, setToken] = useState('')
  const [show, setShow] = useState(false)
  const [error, setError] = useState<unknown>(null)
  const [pending, setPending] = useState(false)
  const [ended] = useState(takeEndedReason)

  useEffect(() => {
    if (existing) navigate('/', { replace: true })
  }, [existing])

  const submit = async (e: FormEvent) => {
    e.preventDefault()
    const t = token.trim()
    if (!t) return setError(new Error('Paste an access token first.'))
    setPending(true)
    setError(null)
    try {
      const me = await api.me(t)
      qc.clear()
      qc.setQueryData(keys.me, me)
      tokenStore.set(t)
    } catch (err) {
      setError(err)
    } finally {
      setPending(false)
    }
  }

  return (
    <main className="center-page">
      <form className="card signin" onSubmit={submit} noValidate>
        <div className="brand brand-large">
          <span className="brand-mark" aria-hidden="true">⚑</span>
          <span className="brand-name">Flagship</span>
        </div>
        <h1>Sign in to the console</h1>
        <p className="muted">Paste an access token. It stays in this browser tab only and is forgotten when you close it.</p>
        {ended && (
          <div className="alert alert-info" role="status">
            {ended}
          </div>
        )}
        <div className="field">
          <label htmlFor="signin-token">Access token</label>
          <div className="input-row">
            <input
              id="signin-token"
              type={show ? 'text' : 'password'}
              autoComplete="off"
              spellCheck={false}
              placeholder="ff_xxxx_…"
              value={token}
              onChange={(e) => setToken(e.target.value)}
              autoFocus
              className="mono"
            />
            <button type="button" className="btn" onClick={() => setShow(!show)} aria-pressed={show}>
              {show ? 'Hide' : 'Show'}
            </button>
          </div>
        </div>
        <ErrorMessage error={error} title="Sign-in failed" />
        <button type="submit" className="btn btn-primary btn-block" disabled={pending}>
          {pending ? 'Checking…' : 'Sign in'}
        </button>
        <p className="muted small">
          The first admin token is printed once when the service starts on an empty database, or create one on the server with <code>npm run cli -- tokens create --project default --name admin --permissions '*'</code>.
        </p>
      </form>
    </main>
  )
}
