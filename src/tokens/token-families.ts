import type { EntityManager } from 'typeorm';

/**
 * The lock that makes "a reused refresh token kills its whole family" hold under races (SPEC §5): issuing
 * into a family and revoking a family both start by writing the family's row, so they serialise (a row
 * lock on MySQL, the write lock on SQLite), and an issue that comes after a revocation sees it.
 */
export async function lockFamily(manager: EntityManager, family: string, mysql: boolean): Promise<{ revoked: boolean }> {
  const ignore = mysql ? 'INSERT IGNORE' : 'INSERT OR IGNORE';
  await manager.query(`${ignore} INTO oauth2_token_family (family, revoked_at) VALUES (?, NULL)`, [family]);
  await manager.query('UPDATE oauth2_token_family SET revoked_at = revoked_at WHERE family = ?', [family]);
  const [row] = await manager.query('SELECT revoked_at FROM oauth2_token_family WHERE family = ?', [family]);
  return { revoked: row?.revoked_at != null };
}

/** Marks the family revoked, under the same lock. */
export async function markFamilyRevoked(manager: EntityManager, family: string, mysql: boolean, now: Date): Promise<void> {
  await lockFamily(manager, family, mysql);
  const stamp = now.toISOString().replace('T', ' ').replace('Z', '');
  await manager.query('UPDATE oauth2_token_family SET revoked_at = ? WHERE family = ?', [stamp, family]);
}
