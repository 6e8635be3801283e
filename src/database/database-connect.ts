import { Logger } from '@nestjs/common';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { ConfigError } from '../config/app-config';
import { codeOf } from './errors';

/** Errors no retry can fix: wrong credentials, a missing database, a host that does not resolve, a bad file. */
const PERMANENT: Record<string, string> = {
  ER_ACCESS_DENIED_ERROR: 'access denied (user or password)',
  ER_ACCESS_DENIED_NO_PASSWORD_ERROR: 'access denied (user or password)',
  ER_DBACCESS_DENIED_ERROR: 'access to the database denied',
  ER_BAD_DB_ERROR: 'unknown database',
  ER_NOT_SUPPORTED_AUTH_MODE: 'authentication method not supported',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  SQLITE_CANTOPEN: 'cannot open the database file',
  SQLITE_NOTADB: 'the file is not an SQLite database',
};
/** Errors a database that is starting, restarting or overloaded gives: worth another try. */
const TRANSIENT: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ETIMEDOUT: 'connection timed out',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  PROTOCOL_CONNECTION_LOST: 'connection lost',
  ER_CON_COUNT_ERROR: 'too many connections',
  ER_SERVER_SHUTDOWN: 'server shutting down',
  SQLITE_BUSY: 'database locked',
};
/** Pauses between attempts for transient errors: about 30 s in all, as before, but one short line each. */
const RETRY_SECONDS = [1, 2, 3, 4, 5, 5, 5, 5];

/** DATABASE_URL as the operator wrote it, with the password masked. */
export function describeDatabase(options: DataSourceOptions): string {
  if (options.type === 'better-sqlite3') return `sqlite:${String(options.database)}`;
  const o = options as { username?: string; password?: string; host?: string; port?: number; database?: string };
  const user = o.username ? `${encodeURIComponent(o.username)}${o.password ? ':***' : ''}@` : '';
  return `mysql://${user}${o.host}:${o.port}/${o.database ?? ''}`;
}

/**
 * The DataSource, connected (issue 34). A permanent error fails at once; a transient one is tried again
 * with one short warning line per attempt (no stack). The last error is a ConfigError naming DATABASE_URL
 * (password masked) and what was wrong, which the service and the CLI print as one line, exit status 2.
 */
export async function connectDatabase(options: DataSourceOptions, logger = new Logger('database'), retrySeconds = RETRY_SECONDS): Promise<DataSource> {
  const where = describeDatabase(options);
  for (let attempt = 0; ; attempt++) {
    try {
      return await new DataSource(options).initialize();
    } catch (err) {
      const code = codeOf(err) ?? '';
      const what = PERMANENT[code] ?? TRANSIENT[code] ?? (err as Error)?.message ?? String(err);
      const label = code && what !== code ? `${what} (${code})` : what;
      if (!(code in TRANSIENT)) throw new ConfigError(`cannot use the database at DATABASE_URL=${where}: ${label}`);
      if (attempt >= retrySeconds.length) {
        throw new ConfigError(`cannot reach the database at DATABASE_URL=${where}: ${label}, ${attempt + 1} attempts over ${retrySeconds.reduce((a, b) => a + b, 0)} s`);
      }
      logger.warn({ event: 'database_unreachable', database: where, error: label, attempt: attempt + 1, retry_in_s: retrySeconds[attempt] });
      await new Promise((resolve) => setTimeout(resolve, retrySeconds[attempt] * 1000));
    }
  }
}
