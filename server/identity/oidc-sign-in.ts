// From a verified OpenID identity to a signed-in user (teams.md §5): users are linked by (issuer, subject);
// a first sign-in attaches to an existing user with the same email only when the provider says the email
// is verified; otherwise an invitation or OIDC_AUTO_CREATE makes the user, or the sign-in is refused.
// Group-mapped grants (OIDC_ROLE_MAP) are applied at every sign-in: mapped memberships are marked
// `via: sso` and replaced each time (a mapped grant wins over a hand edit of the same grant); grants made by
// hand for other projects stay. Linking, creating and the mapped grants are one transaction with their
// instance-audit entries; an invitation (`?invitation=`) is checked first and used right after, in its own.
import type { Store, Db } from '../store'
import type { MembershipRow, UserRow } from '../store/users'
import type { Identity } from './service'
import type { VerifiedIdentity } from './oidc'
import type { OidcSettings } from './oidc-settings'
import { mapGroups } from './oidc-role-map'
import { clientAddress } from './request-meta'
import { instanceRoleRank } from '../store/vocabulary/roles'
import type { Log } from '../log'

/** Why an SSO sign-in was refused; the console's sign-in page words each one. */
export type SsoRefusal = 'domain' | 'unverified' | 'no_account' | 'disabled' | 'invitation'

export class SsoRefused extends Error {
  constructor(
    readonly reason: SsoRefusal,
    message: string,
  ) {
    super(message)
    this.name = 'SsoRefused'
  }
}

/** Invitations for `?invitation=` on the sign-in's start (the invitations module provides them). */
export interface SsoInvitations {
  /** the invitation's email, or undefined when it is unknown, used or expired */
  emailOf(token: string): Promise<string | undefined>
  /** applies it to `user` (roles, memberships) and marks it used, in its own transaction; throws when
   *  it is gone meanwhile */
  accept(token: string, user: UserRow): Promise<void>
}

export interface SsoDeps {
  store: Store
  identity: Identity
  settings: OidcSettings
  log: Log
  invitations?: SsoInvitations
}

const domainOf = (email: string): string => email.slice(email.lastIndexOf('@') + 1)

/** Signs in the person behind `verified`; returns the user and the session's Set-Cookie value. */
export async function signInWithOidc(
  deps: SsoDeps,
  verified: VerifiedIdentity,
  invitation: string | undefined,
  request: Request,
): Promise<{ user: UserRow; cookie: string }> {
  const { store, identity, settings } = deps
  const ip = clientAddress(request)
  const { email, emailVerified } = verified
  // The email decides the domain only when the provider vouches for it.
  if (settings.allowedDomains.length) {
    if (!email || !settings.allowedDomains.includes(domainOf(email)))
      throw new SsoRefused('domain', `email domain not allowed (${email ? domainOf(email) : 'no email'})`)
    if (!emailVerified) throw new SsoRefused('unverified', 'OIDC_ALLOWED_DOMAINS needs an email the provider verified')
  }
  const by = { actor: email ?? `${verified.issuer}#${verified.subject}`, actorType: 'user', ip }

  // The invitation must be open and for this very (verified) email before anyone is created for it.
  if (invitation !== undefined) {
    const invited = deps.invitations ? await deps.invitations.emailOf(invitation) : undefined
    if (!email || !emailVerified || invited !== email)
      throw new SsoRefused('invitation', 'the invitation is unknown, used, expired or for another (or an unverified) email')
  }
  const changed = new Set<string>()
  const user = await identity.change(async (tx, notify) => {
    let user: UserRow | undefined
    const linked = await store.users.byIdentity(tx, verified.issuer, verified.subject)
    if (linked) user = await store.users.get(tx, linked.userId)
    if (!user) {
      const existing = email ? await store.users.byEmail(tx, email) : undefined
      if (existing) {
        if (!emailVerified)
          throw new SsoRefused('unverified', 'an account with this email exists but the provider did not verify the email')
        user = existing
      } else if (invitation !== undefined || settings.autoCreate) {
        if (!email || !emailVerified) throw new SsoRefused('unverified', 'a new account needs an email the provider verified')
        user = await identity.createUser(tx, { email, name: verified.name || email, instanceRole: 'member', sso: true }, by)
      } else {
        throw new SsoRefused('no_account', 'no linked or matching user, and OIDC_AUTO_CREATE is off')
      }
      await store.users.linkIdentity(tx, {
        issuer: verified.issuer,
        subject: verified.subject,
        userId: user.id,
        createdAt: new Date().toISOString(),
      })
      if (!user.sso) await store.users.update(tx, user.id, { sso: true, updatedAt: new Date().toISOString() })
      await identity.audit(tx, {
        ...by,
        actor: user.email,
        action: 'link_identity',
        resourceType: 'user',
        resourceKey: user.id,
        details: { issuer: verified.issuer },
      })
      changed.add(user.id)
    }
    if (user.disabled) throw new SsoRefused('disabled', 'the user is disabled')
    if (invitation !== undefined && user.email !== email) throw new SsoRefused('invitation', 'the invitation is for another email')
    if (await applyMappedGrants(deps, tx, user, verified.groups, ip)) changed.add(user.id)
    for (const id of changed) notify({ resourceType: 'user', resourceKey: id })
    return (await store.users.get(tx, user.id)) ?? user
  })
  // A role map whose claim never arrives grants nothing: people land with no project. Say why, once per
  // sign-in (most often the scope that releases the claim was not asked for).
  if (verified.groupsClaimMissing && Object.keys(settings.roleMap).length) {
    deps.log(
      `oidc: the provider sent no "${settings.groupsClaim}" claim, so OIDC_ROLE_MAP granted nothing; ` +
        `ask for the scope that releases it (often "groups" in OIDC_SCOPES) or have the provider add the claim`,
      { claim: settings.groupsClaim, scopes: settings.scopes, user: user.id },
      'warn',
    )
  }
  if (invitation !== undefined) {
    try {
      await deps.invitations!.accept(invitation, user)
    } catch (e) {
      throw new SsoRefused('invitation', `the invitation could not be used: ${e instanceof Error ? e.message : String(e)}`)
    }
  }
  return { user: (await store.users.get(store.db, user.id)) ?? user, cookie: await identity.signIn(user, request, 'oidc') }
}

/** Applies OIDC_ROLE_MAP for the user's groups; true when anything changed. */
async function applyMappedGrants(deps: SsoDeps, tx: Db, user: UserRow, groups: string[], ip: string | null): Promise<boolean> {
  const { store, identity, settings } = deps
  if (!Object.keys(settings.roleMap).length) return false
  const mapped = mapGroups(groups, settings.roleMap)
  let changed = false
  const audit = (action: string, resourceType: string, resourceKey: string, details: Record<string, unknown>) =>
    identity.audit(tx, { actor: user.email, actorType: 'sso', action, resourceType, resourceKey, details: { ...details, via: 'sso' }, ip })

  if (mapped.instance && mapped.instance !== user.instanceRole) {
    // The last active owner is never demoted, by a group mapping either.
    const demotesOwner = user.instanceRole === 'owner' && instanceRoleRank(mapped.instance) < instanceRoleRank('owner')
    await store.lock(tx, 'owners')
    const otherOwners = demotesOwner
      ? (await store.users.all(tx)).filter((u) => u.id !== user.id && u.instanceRole === 'owner' && !u.disabled).length
      : 1
    if (otherOwners > 0) {
      await store.users.update(tx, user.id, { instanceRole: mapped.instance, updatedAt: new Date().toISOString() })
      await audit('update', 'user', user.id, { instance_role: mapped.instance, was: user.instanceRole })
      changed = true
    } else deps.log('oidc: group mapping would demote the last owner; kept as owner', { user: user.id }, 'warn')
  }

  const current = await store.users.memberships(tx, user.id)
  const wanted = new Map<string, MembershipRow>()
  for (const [slug, grant] of Object.entries(mapped.projects)) {
    const project = await store.projects.bySlug(tx, slug)
    if (!project) {
      deps.log('oidc: OIDC_ROLE_MAP names a project that does not exist', { project: slug }, 'warn')
      continue
    }
    wanted.set(project.id, {
      projectId: project.id,
      userId: user.id,
      role: grant.role,
      environments: { ...grant.environments },
      via: 'sso',
      createdAt: new Date().toISOString(),
    })
  }
  for (const row of wanted.values()) {
    const had = current.find((m) => m.projectId === row.projectId)
    if (had && had.via === 'sso' && had.role === row.role && JSON.stringify(had.environments) === JSON.stringify(row.environments)) continue
    await store.users.putMembership(tx, had ? { ...row, createdAt: had.createdAt } : row)
    await audit(had ? 'update' : 'create', 'member', `${row.projectId}:${user.id}`, {
      project: row.projectId,
      role: row.role,
      environments: row.environments,
    })
    changed = true
  }
  // A group the user left takes its mapped grant with it; grants made by hand stay.
  for (const m of current) {
    if (m.via !== 'sso' || wanted.has(m.projectId)) continue
    await store.users.deleteMembership(tx, m.projectId, user.id)
    await audit('delete', 'member', `${m.projectId}:${user.id}`, { project: m.projectId })
    changed = true
  }
  return changed
}
