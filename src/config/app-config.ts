import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** Static options: read once from the environment at start-up (SPEC §0). */
export interface AppConfig {
  host: string;
  port: number;
  databaseUrl: string;
  dataDir: string;
  secretKey: string;
  sessionCookieName: string;
  sessionCookieSecure: boolean;
  csrfCookieSecure: boolean;
  trustedProxies: string[];
  oauth2ProviderEnabled: boolean;
  publicUrl: string;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  adminUsername: string;
  adminPassword?: string;
  nodeName: string;
  productName: string;
  /** The service's semantic version (package.json), sent as X-API-Product-Version. */
  productVersion: string;
  /** Server processes sharing the port (WEB_CONCURRENCY, node:cluster); above 1 only on MySQL/MariaDB. */
  webConcurrency: number;
  /**
   * The cache of verified basic credentials (auth/basic-credential-cache.ts); AUTH_FAST_PATH=off (a
   * diagnostic an operator sets on a server of their own; the bench never does) turns it off.
   */
  authFastPath: boolean;
  /** The session sweep loop (background-work.ts); SESSION_SWEEP=off leaves it out (tests that count rows). */
  sessionSweep: boolean;
  /** How often the session sweep runs: SESSION_SWEEP_SECONDS (default 60, at least 1), in milliseconds. */
  sessionSweepMs: number;
  /** MANAGE_PASSWORD: the password of a management command given no --password (cli/command-error.ts). */
  managePassword?: string;
  /**
   * NODE_EXTRA_CA_CERTS: a PEM file of CAs that outgoing HTTPS (OpenID Connect) trusts beside Node's and the
   * system's (sso/outgoing-fetch.ts). Node reads it only at process start; this is read per app, so a test
   * can point it at its own CA.
   */
  extraCaCertsFile?: string;
  /**
   * The environment as loaded, for the one reader whose names config/ cannot know: a runtime setting's
   * default is an environment variable of the setting's name (SPEC §9, settings/settings.service.ts).
   * Everything else reads a field above: outside src/config/ nothing reads process.env (the architecture test).
   */
  settingsEnv: Readonly<Record<string, string | undefined>>;
}

export const APP_CONFIG = Symbol('APP_CONFIG');

export class ConfigError extends Error {}

function parseBool(name: string, raw: string | undefined, fallback: boolean): boolean {
  if (raw === undefined || raw === '') return fallback;
  const v = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

/**
 * WEB_CONCURRENCY: 1 to 64 server processes. Above 1 needs MySQL/MariaDB: on SQLite each process has its
 * own connection and in-process transaction queue, so the guarantees that queue gives (the session limit,
 * the throttle count, one refresh per token) would hold per process only (docs/decisions.md).
 */
function parseWebConcurrency(raw: string | undefined, databaseUrl: string): number {
  if (raw === undefined || raw === '') return 1;
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > 64) throw new ConfigError(`WEB_CONCURRENCY must be an integer 1..64, got "${raw}"`);
  const n = Number(raw);
  if (n > 1 && databaseUrl.startsWith('sqlite:')) {
    throw new ConfigError(
      `WEB_CONCURRENCY=${n} needs MySQL or MariaDB (DATABASE_URL=mysql://…): on the embedded SQLite database the session limit, ` +
        'the login throttle and refresh-token rotation are serialised inside one process, so several processes would break them',
    );
  }
  return n;
}

function parsePort(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 8013;
  if (!/^\d+$/.test(raw) || Number(raw) > 65535) throw new ConfigError(`PORT must be an integer 0..65535, got "${raw}"`);
  return Number(raw);
}

/** SECRET_KEY from env, else generated once into the data folder (mode 0600). */
function loadSecretKey(env: NodeJS.ProcessEnv, dataDir: string): string {
  if (env.SECRET_KEY) {
    if (env.SECRET_KEY.length < 32) throw new ConfigError('SECRET_KEY must be at least 32 characters long');
    return env.SECRET_KEY;
  }
  const file = join(dataDir, 'secret_key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(48).toString('base64url');
  writeFileSync(file, key + '\n', { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return key;
}

export function loadAppConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const host = env.HOST || '127.0.0.1';
  const port = parsePort(env.PORT);
  const dataDir = resolve(env.DATA_DIR || './data');
  const databaseUrl = env.DATABASE_URL || `sqlite:${join(dataDir, 'automation.sqlite3')}`;
  if (!/^(sqlite:|mysql:\/\/|mariadb:\/\/)/.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must start with sqlite: or mysql://');
  }
  const publicUrl = (env.PUBLIC_URL || `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/+$/, '');
  try {
    const u = new URL(publicUrl);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error();
  } catch {
    throw new ConfigError(`PUBLIC_URL must be an http(s) URL, got "${env.PUBLIC_URL}"`);
  }
  const httpsPublic = publicUrl.startsWith('https:');
  const logLevel = (env.LOG_LEVEL || 'info').toLowerCase();
  if (!['debug', 'info', 'warn', 'error', 'silent'].includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of debug, info, warn, error, silent; got "${env.LOG_LEVEL}"`);
  }
  const cookieName = env.SESSION_COOKIE_NAME || 'svc_session_id';
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(cookieName)) throw new ConfigError('SESSION_COOKIE_NAME must be 1-64 characters of A-Z a-z 0-9 _ -');
  if (databaseUrl.startsWith('sqlite:')) mkdirSync(dirname(databaseUrl.slice('sqlite:'.length)) || '.', { recursive: true });
  return {
    host,
    port,
    databaseUrl,
    dataDir,
    secretKey: loadSecretKey(env, dataDir),
    sessionCookieName: cookieName,
    sessionCookieSecure: parseBool('SESSION_COOKIE_SECURE', env.SESSION_COOKIE_SECURE, httpsPublic),
    csrfCookieSecure: parseBool('CSRF_COOKIE_SECURE', env.CSRF_COOKIE_SECURE, httpsPublic),
    trustedProxies: (env.TRUSTED_PROXIES || '').split(',').map((s) => s.trim()).filter(Boolean),
    oauth2ProviderEnabled: parseBool('OAUTH2_PROVIDER_ENABLED', env.OAUTH2_PROVIDER_ENABLED, true),
    publicUrl,
    logLevel: logLevel as AppConfig['logLevel'],
    adminUsername: env.ADMIN_USERNAME || 'admin',
    adminPassword: env.ADMIN_PASSWORD || undefined,
    nodeName: env.CLUSTER_HOST_ID || env.HOSTNAME || 'localhost',
    productName: 'Automation Service',
    productVersion: packageVersion(),
    webConcurrency: parseWebConcurrency(env.WEB_CONCURRENCY, databaseUrl),
    authFastPath: env.AUTH_FAST_PATH !== 'off',
    sessionSweep: env.SESSION_SWEEP !== 'off',
    sessionSweepMs: Math.max(1, Number(env.SESSION_SWEEP_SECONDS) || 60) * 1000,
    managePassword: env.MANAGE_PASSWORD || undefined,
    extraCaCertsFile: env.NODE_EXTRA_CA_CERTS || undefined,
    settingsEnv: Object.freeze({ ...env }),
  };
}

/** The version in the project's package.json, found from wherever the code runs (src or dist). */
export function packageVersion(): string {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'automation-service' && pkg.version) return pkg.version;
    } catch {
      /* not here: one level up */
    }
    if (dirname(dir) === dir) return '0.0.0';
  }
}
