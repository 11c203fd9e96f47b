// Why the service could not start, as one line naming the problem and its fix, for the failures an operator
// meets (docs/operations.md): PostgreSQL unreachable, missing or refusing the login, a busy port, a data
// folder that cannot be written. Anything else is a bug and keeps its stack.

/** A start failure already explained in one line. */
export class StartupError extends Error {}

const codeOf = (e: unknown): string | undefined => {
  const code = (e as { code?: unknown })?.code ?? (e as { cause?: { code?: unknown } })?.cause?.code
  return typeof code === 'string' ? code : undefined
}

/** host:port/database of a PostgreSQL URL, without user or password. */
export function describePostgres(url: string): { where: string; database: string; user: string } {
  try {
    const u = new URL(url)
    const database = decodeURIComponent(u.pathname.slice(1)) || decodeURIComponent(u.username) || 'postgres'
    return {
      where: `${u.hostname || 'localhost'}:${u.port || '5432'}`,
      database,
      user: decodeURIComponent(u.username) || process.env.PGUSER || process.env.USER || 'the current user',
    }
  } catch {
    return { where: 'the address in DATABASE_URL', database: 'the database', user: 'the user' }
  }
}

export function postgresStartupError(e: unknown, url: string): StartupError | undefined {
  const { where, database, user } = describePostgres(url)
  const code = codeOf(e)
  if (code === '3D000')
    return new StartupError(
      `PostgreSQL database "${database}" does not exist on ${where}: ` +
        `create it (createdb -h ${where.split(':')[0]} -p ${where.split(':')[1]} ${database}) ` +
        `or point DATABASE_URL at an existing database`,
    )
  if (code === '28000' || code === '28P01')
    return new StartupError(
      `PostgreSQL on ${where} refused user "${user}" (${(e as Error).message}): ` +
        `fix the user or password in DATABASE_URL, or create the role`,
    )
  if (
    code === 'ECONNREFUSED' ||
    code === 'ENOTFOUND' ||
    code === 'EAI_AGAIN' ||
    code === 'ETIMEDOUT' ||
    code === 'CONNECT_TIMEOUT' ||
    code === 'EHOSTUNREACH' ||
    code === 'ENETUNREACH'
  ) {
    return new StartupError(
      `cannot reach PostgreSQL at ${where} (${code}): start PostgreSQL there, or fix the host and port in DATABASE_URL`,
    )
  }
  return undefined
}

export function sqliteStartupError(e: unknown, path: string, folder: string): StartupError | undefined {
  const code = codeOf(e)
  if (code && /^(EACCES|EPERM|EROFS|ENOENT|ENOTDIR|EEXIST|SQLITE_CANTOPEN|SQLITE_READONLY|SQLITE_PERM|SQLITE_IOERR)/.test(code)) {
    return new StartupError(
      `cannot write the SQLite database ${path} in ${folder} (${code}): ` +
        `make that folder writable for this user, or set DATABASE_URL=sqlite:<a writable folder>/flags.db`,
    )
  }
  return undefined
}

export function listenStartupError(e: unknown, host: string, port: number): StartupError | undefined {
  if (codeOf(e) === 'EADDRINUSE' || /in use/i.test((e as Error)?.message ?? '')) {
    return new StartupError(`port ${port} on ${host} is already in use: stop the process using it, or start on another port (PORT=8081)`)
  }
  if (codeOf(e) === 'EACCES')
    return new StartupError(
      `no permission to listen on port ${port}: use a port above 1023 (PORT=8080) behind a reverse proxy (docs/operations.md)`,
    )
  return undefined
}
