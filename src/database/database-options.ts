import { registerSqliteFunctions } from './sqlite-functions';
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
      prepareDatabase: registerSqliteFunctions,
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
