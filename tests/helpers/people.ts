// Several people in one service for API tests (change requests need authors, reviewers and admins): the
// service is started once to create its database, stopped, given users, project memberships and personal
// tokens straight in the store (the way the teams routes store them), and started again on that database, so
// every instance loads them at start. Each person is then signed in through the real login route.
import { openDatabase } from '../../server/store/database'
import { createStore } from '../../server/store'
import { hashToken, tokenPrefixOf } from '../../server/access/tokens'
import type { Permission } from '../../server/store/vocabulary/permissions'
import type { EnvironmentGrants, InstanceRole, ProjectRole } from '../../server/store/vocabulary/roles'
import { createTestDatabase, type TestDatabase } from './postgres'
import { randomAdminToken, startServer, TEST_STORE, type TestServer } from './server'
import { tempSqliteUrl } from './temp'
import { PASSWORD, signIn } from './teams'

export interface PersonSpec {
  email: string
  instanceRole?: InstanceRole
  /** role in the default project (none: not a member) */
  role?: ProjectRole
  environments?: EnvironmentGrants
  /** a personal token with these permissions */
  token?: Permission[]
}

export interface People {
  servers: TestServer[]
  srv: TestServer
  ids: Record<string, string>
  cookies: Record<string, string>
  tokens: Record<string, string>
  databaseUrl: string
  /** one more instance on the same database */
  another(): Promise<TestServer>
  stop(): Promise<void>
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
const personalToken = () => `ff_defa_${Array.from(crypto.getRandomValues(new Uint8Array(20)), (b) => ALPHABET[b % 62]).join('')}`

/** `postgres`: on PostgreSQL whatever TEST_STORE says (several instances need it). */
export async function startWithPeople(
  specs: PersonSpec[],
  opts: { instances?: number; env?: Record<string, string>; postgres?: boolean } = {},
): Promise<People> {
  let pg: TestDatabase | undefined
  if (TEST_STORE === 'postgres' || opts.postgres) pg = await createTestDatabase()
  const databaseUrl = pg?.url ?? tempSqliteUrl()
  const adminToken = randomAdminToken()
  const first = await startServer({ databaseUrl, adminToken, env: opts.env })
  await first.stop()

  const database = await openDatabase(databaseUrl)
  const store = createStore(database)
  const ids: Record<string, string> = {}
  const tokens: Record<string, string> = {}
  const passwordHash = await Bun.password.hash(PASSWORD)
  const now = new Date().toISOString()
  try {
    // One transaction: writes go through the writer connection (the store's reader refuses them).
    await store.transaction(async (tx) => {
      for (const p of specs) {
        const id = crypto.randomUUID()
        ids[p.email] = id
        await store.users.insert(tx, {
          id,
          email: p.email,
          name: p.email.split('@')[0]!,
          instanceRole: p.instanceRole ?? 'member',
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
        })
        if (p.role)
          await store.users.putMembership(tx, {
            projectId: 'default',
            userId: id,
            role: p.role,
            environments: p.environments ?? {},
            via: 'project',
            createdAt: now,
          })
        if (p.token) {
          const token = personalToken()
          tokens[p.email] = token
          await store.tokens.insert(tx, {
            hash: hashToken(token),
            projectId: 'default',
            name: `personal ${p.email}`,
            tokenPrefix: tokenPrefixOf(token),
            permissions: p.token,
            expiresAt: null,
            createdAt: now,
            lastUsedAt: null,
            ownerUserId: id,
            environments: null,
            environment: null,
            createdByUserId: id,
          })
        }
      }
    })
  } finally {
    await database.close()
  }

  const servers: TestServer[] = []
  const start = async () => {
    const s = await startServer({ databaseUrl, adminToken, env: opts.env })
    servers.push(s)
    return s
  }
  for (let i = 0; i < (opts.instances ?? 1); i++) await start()
  const srv = servers[0]!
  const cookies: Record<string, string> = {}
  for (const p of specs) cookies[p.email] = await signIn(srv, p.email)
  return {
    servers,
    srv,
    ids,
    cookies,
    tokens,
    databaseUrl,
    another: start,
    async stop() {
      for (const s of servers) await s.stop()
      await pg?.drop()
    },
  }
}
