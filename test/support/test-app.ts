import 'reflect-metadata';
import type { INestApplication, Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Server } from 'node:http';
import passport from 'passport';
import request from 'supertest';
import { AppModule } from '../../src/app.module';
import { APP_CONFIG, AppConfig, loadAppConfig } from '../../src/config/app-config';
import { Clock, ManualClock } from '../../src/common/clock';
import { JsonLogger, logSink } from '../../src/common/json-logger';
import { SettingsService } from '../../src/settings/settings.service';
import { httpAdapter, setupApp } from '../../src/setup-app';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { UsersService } from '../../src/users/users.service';
import { createTestDatabase, TestDatabase } from './test-db';
import { NO_REQUEST } from '../../src/common/request-context';
import { FIXTURE_POLICY_ENV } from './fixture-policy';

export const ADMIN_PASSWORD = 'Adm1n-test-password!';

export interface TestApp {
  app: INestApplication;
  server: Server;
  url: string;
  clock: ManualClock;
  config: AppConfig;
  db: TestDatabase;
  logs: string[];
  /** Every route the HTTP server registered (method and path pattern; HEAD twins left out). */
  routes: { method: string; path: string }[];
  http(): ReturnType<typeof request>;
  agent(): ReturnType<typeof request.agent>;
  settings(values: Record<string, unknown>): Promise<void>;
  createUser(username: string, password: string, extra?: Record<string, unknown>): Promise<number>;
  close(): Promise<void>;
}

/**
 * Passport's strategy registry is one per process (PassportStrategy registers into the `passport` module's
 * instance, and AuthGuard reads it): the app built last serves every app of the process. Production runs one
 * app per process; a test that opens a second app beside the first gives the first its own strategies back
 * when the second closes (docs/decisions.md, "The card's Passport packages").
 */
type StrategyTable = Record<string, unknown>;
const passportTable = () => (passport as unknown as { _strategies: StrategyTable })._strategies;
const openApps: { strategies: StrategyTable }[] = [];

const capturedLogs: string[] = [];
logSink.write = (line: string) => {
  capturedLogs.push(line);
};

/**
 * The real AppModule behind the production pipeline (setupApp), on a fresh database, listening on
 * a loopback port, with a clock the test can move. Every log line is captured for secret scans.
 */
/**
 * `port`: listen there instead of on a free port the system picks (a browser test whose PUBLIC_URL must name
 * the real port, as WebAuthn's origin check does). `imports`: modules beside AppModule (a login method that
 * only the test suite defines, as a team extending the service would add its own). `passwordPolicy: 'spec'`: the
 * password policy's own defaults, without the fixtures' exception (fixture-policy.ts).
 */
export async function startTestApp(opts: { env?: Record<string, string>; db?: TestDatabase; port?: number; imports?: Type[]; passwordPolicy?: 'spec' } = {}): Promise<TestApp> {
  const db = opts.db ?? (await createTestDatabase());
  const config = loadAppConfig({
    DATA_DIR: db.dataDir,
    DATABASE_URL: db.url,
    SECRET_KEY: 'test-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz',
    PUBLIC_URL: 'http://127.0.0.1',
    ...(opts.passwordPolicy === 'spec' ? {} : FIXTURE_POLICY_ENV),
    ...opts.env,
  } as NodeJS.ProcessEnv);
  const clock = new ManualClock();
  const moduleRef = await Test.createTestingModule({ imports: [AppModule, ...(opts.imports ?? [])] })
    .overrideProvider(APP_CONFIG)
    .useValue(config)
    .overrideProvider(Clock)
    .useValue(clock)
    .compile();
  const app = moduleRef.createNestApplication<NestFastifyApplication>(httpAdapter(config), { bodyParser: false, logger: new JsonLogger('info') });
  await setupApp(app);
  const routes: { method: string; path: string }[] = [];
  app.getHttpAdapter().getInstance().addHook('onRoute', (route) => {
    for (const method of ([] as string[]).concat(route.method)) if (method !== 'HEAD') routes.push({ method, path: route.url });
  });
  await app.init();
  const registration = { strategies: { ...passportTable() } };
  openApps.push(registration);
  await app.get(UsersService).ensureBootstrapAdmin('admin', ADMIN_PASSWORD);
  await app.listen(opts.port ?? 0, '127.0.0.1');
  const server = app.getHttpServer() as Server;
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const url = `http://127.0.0.1:${port}`;
  return {
    app,
    server,
    url,
    clock,
    config,
    db,
    logs: capturedLogs,
    routes,
    http: () => request(server),
    agent: () => request.agent(server),
    // Per-key validation without the category checks, so tests can set e.g. DISABLE_LOCAL_AUTH.
    settings: async (values) => {
      for (const [k, v] of Object.entries(values)) await app.get(SettingsService).store(k, v, 'test', NO_REQUEST);
    },
    createUser: async (username, password, extra = {}) => {
      const user = await app.get(UsersService).create({ username, password, ...extra }, NO_REQUEST);
      return user.id;
    },
    close: async () => {
      await app.close();
      openApps.splice(openApps.indexOf(registration), 1);
      const current = openApps.at(-1);
      if (current) for (const [name, strategy] of Object.entries(current.strategies)) passport.use(name, strategy as passport.Strategy);
      if (!opts.db) await db.drop();
    },
  };
}

export function basic(username: string, password: string): string {
  return 'Basic ' + Buffer.from(`${username}:${password}`, 'utf8').toString('base64');
}
