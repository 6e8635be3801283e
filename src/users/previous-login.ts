import type { EntityManager } from 'typeorm';

/**
 * SPEC §22: the login being recorded makes the latest one the previous one. Its own statement, before the one that
 * writes the new time: MySQL and SQLite order one UPDATE's assignments differently.
 */
export async function shiftPreviousLogin(manager: EntityManager, id: number): Promise<void> {
  await manager.query('UPDATE auth_user SET previous_login_at = last_login_event_at WHERE id = ?', [id]);
}
