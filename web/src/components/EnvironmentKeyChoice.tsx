// Whether a new token is an environment key (docs/teams.md, environments.md §2), and which environment: the
// Tokens page's form and the personal-token form on the Account page ask it the same way. A read-only token
// is an environment key by default (production when the project has one) until a choice is made; a client
// key is always one.
import { useState } from 'react'
import type { Permission } from '../api'

/** The environment a new key is bound to by default: production when the project has one. */
const defaultEnvironment = (environments: string[]): string =>
  environments.includes('production') ? 'production' : (environments[0] ?? '')

const READ_ONLY = new Set<Permission>(['read:flags', 'read:configs', 'client'])

export interface EnvironmentKeyChoice {
  environments: string[]
  client: boolean
  /** an environment key is asked for (and the project has an environment to bind it to) */
  envKey: boolean
  environment: string
  bind(on: boolean): void
  pick(environment: string): void
  /** the field to send with the token's creation: `{ environment }` for an environment key, else nothing */
  body: { environment?: string }
}

export function useEnvironmentKeyChoice(environments: string[], permissions: Permission[]): EnvironmentKeyChoice {
  const [choice, setBound] = useState<boolean | null>(null)
  const [picked, setPicked] = useState('')
  const bound = choice ?? permissions.every((p) => READ_ONLY.has(p))
  // A pick from another project's list (the personal-token form changes project) falls back to the default.
  const environment = picked && environments.includes(picked) ? picked : defaultEnvironment(environments)
  const client = permissions.includes('client')
  const envKey = (bound || client) && environment !== ''
  return {
    environments,
    client,
    envKey,
    environment,
    bind: setBound,
    pick: (e) => (setPicked(e), setBound(true)),
    body: envKey ? { environment } : {},
  }
}

/** The Environment fieldset: "Environment key" with its environment, or "Any environment". `name` groups the
 *  two radios (one per form on a page). */
export function EnvironmentKeyFieldset({ choice, name }: { choice: EnvironmentKeyChoice; name: string }) {
  const { environments, envKey, environment, client } = choice
  return (
    <fieldset className="fieldset">
      <legend>Environment</legend>
      <div className="checkbox-grid">
        <div className="checkbox-card">
          <label className="checkbox">
            <input type="radio" name={name} checked={envKey} disabled={environments.length === 0} onChange={() => choice.bind(true)} />
            <span>
              Environment key
              <span className="muted small block">Every evaluation runs in this environment; write permissions apply to it only.</span>
            </span>
          </label>
          <select aria-label="Environment of the key" value={environment} onChange={(e) => choice.pick(e.target.value)}>
            {environments.map((env) => (
              <option key={env} value={env}>
                {env}
              </option>
            ))}
          </select>
        </div>
        <label className="checkbox checkbox-card">
          <input type="radio" name={name} checked={!envKey} disabled={client} onChange={() => choice.bind(false)} />
          <span>
            Any environment (the application names one)
            <span className="muted small block">
              {client
                ? 'A client key is always bound to one environment.'
                : 'The context’s environment decides; none means the main switch.'}
            </span>
          </span>
        </label>
      </div>
    </fieldset>
  )
}
