/** True for a unique-key violation on MySQL/MariaDB or SQLite. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; driverError?: { code?: string } };
  const code = e?.driverError?.code ?? e?.code;
  return code === 'ER_DUP_ENTRY' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** True when a row refers to one that no longer exists (a concurrent DELETE), on MySQL/MariaDB or SQLite. */
export function isForeignKeyViolation(err: unknown): boolean {
  const e = err as { code?: string; driverError?: { code?: string } };
  const code = e?.driverError?.code ?? e?.code;
  return code === 'ER_NO_REFERENCED_ROW_2' || code === 'ER_NO_REFERENCED_ROW' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}
