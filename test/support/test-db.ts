import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';

export const TEST_DB = (process.env.TEST_DB || 'sqlite') as 'sqlite' | 'mysql';

/**
 * The Galera pass of `npm test` (scripts/test-all.sh) starts a 3-member cluster and sets this to its SQL
 * ports: test databases are then made on the cluster, and service node i attaches to member i mod 3.
 */
export const GALERA_PORTS = (process.env.TEST_GALERA_PORTS ?? '').split(',').filter(Boolean).map(Number);
const MYSQL_BASE = GALERA_PORTS.length ? `mysql://root@127.0.0.1:${GALERA_PORTS[0]}` : process.env.TEST_MYSQL_URL || 'mysql://root@127.0.0.1:3306';

/** The same database URL through member `i` of the Galera cluster (unchanged outside the Galera pass). */
export function memberUrl(url: string, i: number): string {
  if (!GALERA_PORTS.length || !url.startsWith('mysql:')) return url;
  const u = new URL(url);
  u.port = String(GALERA_PORTS[i % GALERA_PORTS.length]);
  return u.toString();
}

export interface TestDatabase {
  url: string;
  dataDir: string;
  drop(): Promise<void>;
}

/** A fresh, empty database for one test file: a temp SQLite file, or a new MariaDB schema. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-test-'));
  if (TEST_DB === 'sqlite') {
    return { url: `sqlite:${join(dataDir, 'test.sqlite3')}`, dataDir, drop: async () => rmSync(dataDir, { recursive: true, force: true }) };
  }
  const name = `svc_test_${randomBytes(6).toString('hex')}`;
  const admin = await createConnection(MYSQL_BASE);
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4`);
  await admin.end();
  return {
    url: `${MYSQL_BASE}/${name}`,
    dataDir,
    drop: async () => {
      const conn = await createConnection(MYSQL_BASE);
      await conn.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await conn.end();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
