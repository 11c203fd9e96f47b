// Many rows in few statements: PostgreSQL binds at most 65,535 parameters per statement (SQLite 32,766),
// and a change set may write 10,000 rows at once.

/** Rows per statement: a few dozen columns each stays well under either limit. */
export const ROWS_PER_STATEMENT = 500

/** Calls `write` with consecutive slices of `items`, in order, one after the other. */
export async function inChunks<T>(items: readonly T[], write: (chunk: T[]) => Promise<unknown>, size = ROWS_PER_STATEMENT): Promise<void> {
  for (let i = 0; i < items.length; i += size) await write(items.slice(i, i + size))
}
