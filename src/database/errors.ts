/** The driver's error code, whether TypeORM wrapped the error or not. */
export function codeOf(err: unknown): string | undefined {
  const e = err as { code?: string; driverError?: { code?: string } };
  return e?.driverError?.code ?? e?.code;
}

/** True for a unique-key violation on MySQL/MariaDB or SQLite. */
export function isUniqueViolation(err: unknown): boolean {
  const code = codeOf(err);
  return code === 'ER_DUP_ENTRY' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** True when a row refers to one that no longer exists (a concurrent DELETE), on MySQL/MariaDB or SQLite. */
export function isForeignKeyViolation(err: unknown): boolean {
  const code = codeOf(err);
  return code === 'ER_NO_REFERENCED_ROW_2' || code === 'ER_NO_REFERENCED_ROW' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}

/** Connection-level failures: the database is unreachable, not the request wrong (SPEC §1: 503). */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT', 'ER_SERVER_SHUTDOWN', 'ER_CON_COUNT_ERROR', 'ER_NET_READ_ERROR', 'ER_NET_WRITE_INTERRUPTED',
  'SQLITE_CANTOPEN', 'SQLITE_IOERR', 'SQLITE_BUSY', 'SQLITE_FULL',
]);

/**
 * A MySQL/MariaDB deadlock (on a Galera cluster also a write that lost certification to another member):
 * nothing of the statement or transaction was applied, so it may simply be run again.
 */
export function isDeadlock(err: unknown): boolean {
  return codeOf(err) === 'ER_LOCK_DEADLOCK';
}

/** A deadlock or a lock wait that timed out: a transaction that may be run again from its start. */
export function isLockConflict(err: unknown): boolean {
  return isDeadlock(err) || codeOf(err) === 'ER_LOCK_WAIT_TIMEOUT';
}

export function isDatabaseUnavailable(err: unknown): boolean {
  const e = err as { message?: string };
  const code = codeOf(err);
  if (code && UNAVAILABLE_CODES.has(code)) return true;
  // mysql2 after the pool lost its server: "Can't add new command when connection is in closed state".
  return typeof e?.message === 'string' && /connection is in closed state|Connection lost/i.test(e.message);
}

/** A statement stopped by its time limit: MariaDB's max_statement_time (errno 1969) or MySQL's MAX_EXECUTION_TIME. */
export function isStatementTimeout(err: unknown): boolean {
  const e = err as { errno?: number; driverError?: { errno?: number } };
  return (e?.driverError?.errno ?? e?.errno) === 1969 || codeOf(err) === 'ER_QUERY_TIMEOUT';
}
