// First: V8's pretenuring off before any collection runs (common/no-pretenuring.ts); nextTick's hidden class kept
// alive before anything else runs (common/tick-shape.ts).
import './common/no-pretenuring';
import './common/tick-shape';
import 'reflect-metadata';
import cluster from 'node:cluster';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module';
import { APP_CONFIG, AppConfig, ConfigError, loadAppConfig } from './config/app-config';
import { JsonLogger, logSink } from './common/json-logger';
import { reportSlowStart, startStep } from './database/start-progress';
import { httpAdapter, setupApp } from './setup-app';
import { UsersService } from './users/users.service';
import { runWebWorkers } from './web-workers';

async function bootstrap(): Promise<void> {
  let loaded: AppConfig;
  try {
    loaded = loadAppConfig();
  } catch (e) {
    process.stderr.write(`automation-service: ${(e as Error).message}\n`);
    process.exit(2);
  }
  const logger = new JsonLogger(loaded.logLevel);
  if (loaded.webConcurrency > 1 && cluster.isPrimary) return runWebWorkers(loaded.webConcurrency, logger);
  const started = reportSlowStart(logger);
  // abortOnError false: a start-up failure reaches the catch below (one line, exit status) instead of abort().
  const app = await NestFactory.create<NestFastifyApplication>(AppModule, httpAdapter(loaded), { bodyParser: false, logger, abortOnError: false });
  await setupApp(app);
  const config = app.get<AppConfig>(APP_CONFIG);
  startStep('the superuser');
  const admin = await app.get(UsersService).ensureBootstrapAdmin(config.adminUsername, config.adminPassword);
  stopOnSignals(app, logger);
  startStep('the port');
  await app.listen(config.port, config.host);
  started();
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${host}:${port}/`;
  // One banner per start (the first worker's when there are several), on the terminal, before any log line.
  if (!cluster.isWorker || cluster.worker?.id === 1) process.stderr.write(banner(config, url, admin.generatedPassword));
  if (admin.created) logger.log({ event: 'superuser_created', username: config.adminUsername }, 'bootstrap');
  logSink.write(JSON.stringify({ time: new Date().toISOString(), level: 'info', event: 'listening', url, public_url: config.publicUrl }));
}

/**
 * What an operator needs from a start, outside the JSON stream (issue 34): where it listens, where to log
 * in, and on the very first start the superuser's generated password, shown only this once.
 */
function banner(config: AppConfig, url: string, generatedPassword: string | undefined): string {
  // PUBLIC_URL defaults to HOST:PORT; with PORT=0 (any free port) only the listening address is real.
  const base = config.publicUrl.endsWith(':0') ? url.replace(/\/$/, '') : config.publicUrl;
  const lines = [
    '',
    `Automation Service ${config.productVersion} is listening on ${url}`,
    `  log in at ${base}/api/login/ (API: ${base}/api/v2/)`,
  ];
  if (generatedPassword) {
    lines.push(
      `  Created superuser "${config.adminUsername}" with generated password: ${generatedPassword}`,
      `  It is shown only this once. Change it with: npm run manage -- changepassword ${config.adminUsername}`,
    );
  }
  return `${lines.join('\n')}\n\n`;
}

/** How long requests in flight may take to finish after SIGTERM (SPEC §1). */
const DRAIN_MS = 10_000;

/**
 * SIGTERM (and SIGINT): stop accepting connections and let the requests in flight finish (at most
 * DRAIN_MS), then close the application (background loops stop, the last batched writes are flushed,
 * the database pool closes) and exit 0. The HTTP server closes first: Nest would otherwise run the
 * modules' destroy hooks while requests are still being answered.
 */
function stopOnSignals(app: NestFastifyApplication, logger: JsonLogger): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.log({ event: 'shutdown', signal }, 'bootstrap');
    const drained = app.getHttpAdapter().getInstance().close();
    await Promise.race([drained, new Promise((resolve) => setTimeout(resolve, DRAIN_MS).unref())]);
    try {
      await app.close();
    } catch (err) {
      logger.error({ event: 'shutdown_failed', error: String((err as Error)?.message ?? err) }, undefined, 'bootstrap');
    }
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}

bootstrap().catch((err) => {
  // A configuration the service cannot start with (a database it cannot use included): status 2.
  if (err instanceof ConfigError) {
    process.stderr.write(`automation-service: ${err.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`automation-service: failed to start: ${String(err?.message ?? err)}\n`);
  process.exit(1);
});
