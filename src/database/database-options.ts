import type { DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from './migrations';

export type DatabaseKind = 'sqlite' | 'mysql';

export function databaseKind(url: string): DatabaseKind {
  return url.startsWith('sqlite:') ? 'sqlite' : 'mysql';
}

/**
 * The one options function behind both the app's TypeOrmModule and ormconfig.ts (the CLI DataSource),
 * so the two can never drift. `synchronize` is never on: the schema comes from migrations only.
 * Entities are not listed here: each feature module registers its own (`TypeOrmModule.forFeature`) and
 * the app loads them (`autoLoadEntities`); the migration CLI needs none, migrations are plain SQL steps.
 */
export function databaseOptions(url: string): DataSourceOptions {
  const common = {
    migrations: MIGRATIONS,
    synchronize: false,
    migrationsRun: false,
    logging: false,
  } as const;
  if (databaseKind(url) === 'sqlite') {
    return {
      ...common,
      type: 'better-sqlite3',
      database: url.slice('sqlite:'.length),
      enableWAL: true,
      // Wait for a lock held by another connection instead of failing at once.
      timeout: 10000,
      // The `regex`/`iregex` lookups of AWX's list query language (SQLite has REGEXP syntax but no function).
      prepareDatabase: (db: { function(name: string, options: object, fn: (...args: unknown[]) => unknown): void }) => {
        db.function('regexp', { deterministic: true }, (pattern, value) => regexTest(pattern, value, ''));
        db.function('iregexp', { deterministic: true }, (pattern, value) => regexTest(pattern, value, 'i'));
      },
    };
  }
  const u = new URL(url.replace(/^mariadb:/, 'mysql:'));
  return {
    ...common,
    type: 'mysql',
    host: u.hostname,
    port: u.port ? Number(u.port) : 3306,
    username: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    database: u.pathname.replace(/^\//, ''),
    charset: 'utf8mb4',
    timezone: 'Z',
    extra: { connectionLimit: 10 },
  };
}

const compiled = new Map<string, RegExp>();

/** 1 when `value` matches `pattern`; the patterns of a query are compiled once (a few kept). */
function regexTest(pattern: unknown, value: unknown, flags: string): number {
  if (value === null || value === undefined) return 0;
  const key = `${flags}/${String(pattern)}`;
  let re = compiled.get(key);
  if (!re) {
    re = new RegExp(String(pattern), flags);
    if (compiled.size > 64) compiled.clear();
    compiled.set(key, re);
  }
  return re.test(String(value)) ? 1 : 0;
}
