// server/identity: who the caller is (never what they may do: that is server/access). First-run setup,
// password sign-in with two-factor, sign-out, sessions and password changes. Every change is one store
// transaction with its instance-audit entry; change notices (`user`, `session`) published after commit
// reach every instance's directory and session cache, so they act on the very next request.
import { timingSafeEqual } from 'node:crypto'
import type { Store, Db } from '../store'
import type { UserRow } from '../store/users'
import type { Settings } from '../settings'
import type { ChangeBus, ChangeNotice } from '../notices/changes'
import { notFound, validationError, conflict, forbidden, unauthorized } from '../errors'
import { Directory, type Person } from './directory'
import { SessionCache } from './sessions'
import { createThrottle } from './throttle'
import { assertPassword, hashPassword, verifyPassword, warmPasswords } from './passwords'
import { acceptTotp, hashRecoveryCode } from './totp'
import { clientAddress, requestMeta } from './request-meta'
import { sessionCookie } from './cookies'
import type { InstanceRole } from '../store/vocabulary/roles'
import { userOperations, type AuditEntry } from './users'
export type { AuditEntry } from './users'

export interface IdentityDeps {
  store: Store
  bus: ChangeBus
  settings: Settings
  limiter: { hit(key: string, limit: number): { allowed: boolean; retryAfter: number } | Promise<{ allowed: boolean; retryAfter: number }> }
}

export const userView = (u: UserRow) => ({
  id: u.id,
  email: u.email,
  name: u.name,
  instance_role: u.instanceRole,
  disabled: u.disabled,
  created_at: u.createdAt,
  last_login_at: u.lastLoginAt,
  has_password: u.passwordHash !== null,
  has_totp: u.totpSecret !== null,
  sso: u.sso,
})
export type UserView = ReturnType<typeof userView>

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
export function normalEmail(raw: unknown, path = 'email'): string {
  const email = typeof raw === 'string' ? raw.trim().toLowerCase() : ''
  if (!EMAIL.test(email) || email.length > 254) throw validationError([{ path, message: 'must be an email address' }])
  return email
}
export function displayName(raw: unknown, path = 'name'): string {
  const name = typeof raw === 'string' ? raw.trim() : ''
  if (!name || name.length > 200 || /[\x00-\x1f\x7f]/.test(name))
    throw validationError([{ path, message: 'must be 1-200 characters without control characters' }])
  return name
}

const invalidCredentials = () => unauthorized('INVALID_CREDENTIALS', 'Wrong email or password')
const sameText = (a: string, b: string): boolean => {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

export function createIdentity(deps: IdentityDeps) {
  const { store, bus, settings } = deps
  const directory = new Directory(store)
  const sessions = new SessionCache(store, { idleMs: settings.sessionIdleMinutes * 60_000, maxMs: settings.sessionMaxHours * 3_600_000 })
  const throttle = createThrottle(store, deps.limiter)
  /** The single sign-on methods offered on the sign-in page (the OpenID Connect module adds itself). */
  const oidcProviders: { id: string; name: string }[] = []
  let setupCode: string | undefined

  const audit = (tx: Db, e: AuditEntry) =>
    store.instanceAudit.insert(tx, { ...e, details: e.details ?? null, ip: e.ip ?? null, timestamp: new Date().toISOString() })

  /** One transaction; `notify` collects the change notices published once it has committed. */
  async function change<T>(
    fn: (tx: Db, notify: (n: Omit<ChangeNotice, 'projectId'> & { projectId?: string }) => void) => Promise<T>,
  ): Promise<T> {
    const notices: ChangeNotice[] = []
    const result = await store.transaction((tx) => fn(tx, (n) => void notices.push({ projectId: '', ...n })))
    for (const n of notices) await bus.publish(n)
    return result
  }

  /** A new session for `user` (a fresh value at every sign-in: a value planted earlier is never adopted);
   *  returns the Set-Cookie header value. */
  async function signIn(user: UserRow, request: Request, method: string): Promise<string> {
    if (user.disabled) throw invalidCredentials()
    const { value, row } = sessions.newRow(user.id, requestMeta(request))
    await store.transaction(async (tx) => {
      await store.sessions.insert(tx, row)
      await store.users.update(tx, user.id, { lastLoginAt: row.createdAt })
      await audit(tx, {
        actor: user.email,
        actorType: 'user',
        action: 'sign_in',
        resourceType: 'session',
        resourceKey: row.id,
        details: { method },
        ip: row.ip,
      })
    })
    sessions.remember(row)
    await directory.refresh(user.id)
    return sessionCookie(settings, value)
  }

  /** Spends a two-factor code or a recovery code of `user`; false when neither is valid. */
  async function spendSecondFactor(tx: Db, user: UserRow, code: string): Promise<boolean> {
    // Claimed in the store (conditional updates), not checked against `user` as read earlier: five
    // concurrent sign-ins with one code, on one instance or several, open one session.
    const step = acceptTotp(user.totpSecret!, code, user.totpLastStep)
    if (step !== undefined) return store.users.claimTotpStep(tx, user.id, step)
    if (typeof code !== 'string') return false
    return store.users.claimRecoveryCode(tx, user.id, hashRecoveryCode(code))
  }

  /** Creates a user (instance admins, invitations, SSO, the CLI). `password` is optional (SSO users). */
  async function createUser(
    tx: Db,
    input: { email: string; name: string; instanceRole: InstanceRole; password?: string; sso?: boolean },
    by: { actor: string; actorType: string; ip?: string | null },
  ): Promise<UserRow> {
    const email = normalEmail(input.email)
    const name = displayName(input.name)
    if (input.password !== undefined) assertPassword(input.password, email)
    if (await store.users.byEmail(tx, email)) throw conflict('CONFLICT', 'A user with this email already exists')
    const now = new Date().toISOString()
    const user: UserRow = {
      id: crypto.randomUUID(),
      email,
      name,
      instanceRole: input.instanceRole,
      disabled: false,
      passwordHash: input.password !== undefined ? await hashPassword(input.password) : null,
      totpSecret: null,
      totpPending: null,
      totpLastStep: null,
      recoveryCodes: [],
      sso: input.sso ?? false,
      createdAt: now,
      updatedAt: now,
      lastLoginAt: null,
    }
    await store.users.insert(tx, user)
    await audit(tx, {
      ...by,
      action: 'create',
      resourceType: 'user',
      resourceKey: user.id,
      details: { email, instance_role: input.instanceRole },
    })
    return user
  }

  const users = userOperations({ store, directory, change, audit, createUser })

  return {
    directory,
    users,
    createUser,
    sessions,
    throttle,
    oidcProviders,
    audit,
    change,
    signIn,
    spendSecondFactor,

    /** Loads people into memory; on a store without users, the setup code (SETUP_CODE, or one made and
     *  shared through the store so every instance accepts the same) is returned for printing. */
    async start(): Promise<string | undefined> {
      await directory.reload()
      await warmPasswords()
      if (directory.size > 0) return undefined
      setupCode =
        settings.setupCode ??
        (await store.transaction((tx) =>
          store.serverKeys.getOrCreate(tx, 'setup-code', Buffer.from(crypto.getRandomValues(new Uint8Array(18))).toString('base64url')),
        ))
      return setupCode
    },

    setupNeeded: () => directory.size === 0,

    methods() {
      return { setup_needed: directory.size === 0, password: true as const, oidc: oidcProviders.map((p) => ({ id: p.id, name: p.name })) }
    },

    async setup(input: { setup_code: string; email: string; name: string; password: string }, request: Request) {
      await throttle.checkAddress(clientAddress(request))
      if (directory.size > 0 || setupCode === undefined) throw conflict('ALREADY_SET_UP', 'This service already has users; sign in instead')
      if (typeof input.setup_code !== 'string' || !sameText(input.setup_code, setupCode)) {
        throw forbidden('INVALID_SETUP_CODE', 'Wrong setup code (it is printed in the service log at start)')
      }
      const email = normalEmail(input.email)
      const name = displayName(input.name)
      assertPassword(input.password, email)
      const passwordHash = await hashPassword(input.password)
      const now = new Date().toISOString()
      const user: UserRow = {
        id: crypto.randomUUID(),
        email,
        name,
        instanceRole: 'owner',
        disabled: false,
        passwordHash,
        totpSecret: null,
        totpPending: null,
        totpLastStep: null,
        recoveryCodes: [],
        sso: false,
        createdAt: now,
        updatedAt: now,
        lastLoginAt: null,
      }
      await change(async (tx, notify) => {
        // One setup ever, even when two arrive at once on different instances.
        if (!(await store.serverKeys.claim(tx, 'setup-done')) || (await store.users.count(tx)) > 0) {
          throw conflict('ALREADY_SET_UP', 'This service already has users; sign in instead')
        }
        await store.users.insert(tx, user)
        await audit(tx, {
          actor: email,
          actorType: 'user',
          action: 'setup',
          resourceType: 'user',
          resourceKey: user.id,
          details: { email, instance_role: 'owner' },
          ip: clientAddress(request),
        })
        notify({ resourceType: 'user', resourceKey: user.id })
      })
      setupCode = undefined
      await directory.refresh(user.id)
      return { user, cookie: await signIn(user, request, 'setup') }
    },

    async login(input: { email: string; password: string; totp?: string }, request: Request) {
      const ip = clientAddress(request)
      await throttle.checkAddress(ip)
      const email = typeof input.email === 'string' ? input.email.trim().toLowerCase() : ''
      await throttle.checkAccount(email)
      const found = await store.users.byEmail(store.db, email)
      // Unknown emails verify against a dummy hash: the same work, the same answer, the same time.
      const ok = await verifyPassword(input.password, found?.passwordHash)
      const refuse = async (reason: string) => {
        await throttle.failed(email)
        await store.transaction((tx) =>
          audit(tx, {
            actor: email.slice(0, 254),
            actorType: 'user',
            action: 'sign_in_failed',
            resourceType: 'session',
            resourceKey: '',
            details: { method: 'password', reason },
            ip,
          }),
        )
        return invalidCredentials()
      }
      if (!ok || !found || found.disabled) throw await refuse(found && ok ? 'disabled' : 'credentials')
      const user = found
      if (user.totpSecret !== null) {
        if (input.totp === undefined || input.totp === '')
          throw unauthorized('TOTP_REQUIRED', 'This account needs its two-factor code (field `totp`)')
        const spent = await store.transaction((tx) => spendSecondFactor(tx, user, input.totp!))
        if (!spent) throw await refuse('totp')
      }
      await throttle.succeeded(email)
      const cookie = await signIn(user, request, 'password')
      return { user: directory.get(user.id)?.user ?? user, cookie }
    },

    async logout(person: Person, sessionId: string, request: Request): Promise<void> {
      await change(async (tx, notify) => {
        await store.sessions.delete(tx, sessionId)
        await audit(tx, {
          actor: person.user.email,
          actorType: 'user',
          action: 'sign_out',
          resourceType: 'session',
          resourceKey: sessionId,
          ip: clientAddress(request),
        })
        notify({ resourceType: 'session', resourceKey: sessionId })
      })
      sessions.forget(sessionId)
    },

    /** A wrong current password: 403. Ends every other session of the user. */
    async changePassword(
      person: Person,
      sessionId: string | undefined,
      input: { current_password: string; new_password: string },
      request: Request,
    ) {
      const user = person.user
      // Throttled like sign-in (the same per-account state): a stolen cookie is no password-guessing oracle.
      await throttle.checkAccount(user.email)
      if (!(await verifyPassword(input.current_password, user.passwordHash))) {
        await throttle.failed(user.email)
        throw forbidden('INVALID_CURRENT_PASSWORD', 'The current password is wrong')
      }
      await throttle.succeeded(user.email)
      assertPassword(input.new_password, user.email, 'new_password')
      const passwordHash = await hashPassword(input.new_password)
      await change(async (tx, notify) => {
        await store.users.update(tx, user.id, { passwordHash, updatedAt: new Date().toISOString() })
        await store.sessions.deleteForUser(tx, user.id, sessionId)
        await audit(tx, {
          actor: user.email,
          actorType: 'user',
          action: 'password_change',
          resourceType: 'user',
          resourceKey: user.id,
          ip: clientAddress(request),
        })
        notify({ resourceType: 'user', resourceKey: user.id })
      })
    },

    async listSessions(userId: string, currentId: string | undefined) {
      const rows = await store.sessions.byUser(store.db, userId)
      const now = Date.now()
      const idle = settings.sessionIdleMinutes * 60_000
      return rows
        .filter((r) => Date.parse(r.expiresAt) > now && Date.parse(sessions.lastSeen(r)) + idle > now)
        .map((r) => ({
          id: r.id,
          created_at: r.createdAt,
          last_seen_at: sessions.lastSeen(r),
          ip: r.ip,
          user_agent: r.userAgent,
          current: r.id === currentId,
        }))
    },

    async revokeSession(person: Person, id: string, request: Request): Promise<void> {
      await change(async (tx, notify) => {
        const mine = (await store.sessions.byUser(tx, person.user.id)).some((s) => s.id === id)
        if (!mine) throw notFound('NOT_FOUND', 'Session')
        await store.sessions.delete(tx, id)
        await audit(tx, {
          actor: person.user.email,
          actorType: 'user',
          action: 'sign_out',
          resourceType: 'session',
          resourceKey: id,
          details: { revoked: true },
          ip: clientAddress(request),
        })
        notify({ resourceType: 'session', resourceKey: id })
      })
      sessions.forget(id)
    },

    /** The signed-in person behind a cookie value, from memory when the session is known. */
    async personOf(value: string, ip: string | null = null): Promise<{ person: Person; sessionId: string } | undefined> {
      // A value not in memory costs one store read; each address gets 600 of those a minute.
      const session = await sessions.resolve(
        value,
        Date.now(),
        async () => (await deps.limiter.hit(`session-lookup:${ip ?? 'unknown'}`, 600)).allowed,
      )
      if (!session) return undefined
      let person = directory.get(session.userId)
      // A user made on another instance whose notice has not arrived yet: read once.
      if (!person) {
        await directory.refresh(session.userId)
        person = directory.get(session.userId)
      }
      if (!person || person.user.disabled) return undefined
      return { person, sessionId: session.id }
    },

    async stop(): Promise<void> {
      await sessions.stop()
    },
  }
}
export type Identity = ReturnType<typeof createIdentity>
