// People in API tests: the setup code from the server's log, sign-in, and requests sent the way the
// console sends them (session cookie, X-Flagship-Request: 1, Flagship-Project).
import { api, type ApiResponse, type TestServer } from './server'

export const PASSWORD = 'correct horse battery staple'

export function setupCodeOf(srv: TestServer): string {
  const m = /^setup code: (\S+)$/m.exec(srv.output())
  if (!m) throw new Error(`no setup code in the log:\n${srv.output()}`)
  return m[1]!
}

/** The session cookie (name=value) a response set. */
export function cookieOf(res: ApiResponse): string {
  const raw = res.headers.get('set-cookie')
  if (!raw) throw new Error(`no Set-Cookie (status ${res.status}: ${res.text})`)
  return raw.split(';')[0]!
}

export interface As {
  cookie?: string
  project?: string
  headers?: Record<string, string>
  body?: unknown
  rawBody?: string
  token?: string
}

/** A console-style request: the cookie, the CSRF header, the project header. */
export function sapi<T = any>(srv: TestServer, method: string, path: string, as: As = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { 'x-flagship-request': '1', ...as.headers }
  if (as.cookie) headers.cookie = as.cookie
  if (as.project) headers['flagship-project'] = as.project
  return api<T>(srv, method, path, { headers, body: as.body, rawBody: as.rawBody, token: as.token })
}

/** Creates the first owner through the setup route; returns their cookie. */
export async function setupOwner(srv: TestServer, email = 'owner@example.com', password = PASSWORD): Promise<string> {
  const res = await sapi(srv, 'POST', '/api/v1/auth/setup', { body: { setup_code: setupCodeOf(srv), email, name: 'Owner', password } })
  if (res.status !== 201) throw new Error(`setup failed: ${res.status} ${res.text}`)
  return cookieOf(res)
}

export async function signIn(srv: TestServer, email: string, password = PASSWORD): Promise<string> {
  const res = await sapi(srv, 'POST', '/api/v1/auth/login', { body: { email, password } })
  if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${res.text}`)
  return cookieOf(res)
}
