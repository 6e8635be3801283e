import 'reflect-metadata';
import cluster from 'node:cluster';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module';
import { APP_CONFIG, AppConfig, ConfigError, loadAppConfig } from './config/app-config';
import { JsonLogger, logSink } from './common/json-logger';
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
  const app = await NestFactory.create<NestFastifyApplication>(AppModule, httpAdapter(loaded), { bodyParser: false, logger });
  await setupApp(app);
  const config = app.get<AppConfig>(APP_CONFIG);
  const admin = await app.get(UsersService).ensureBootstrapAdmin(config.adminUsername, config.adminPassword);
  if (admin.created) {
    logger.log({ event: 'superuser_created', username: config.adminUsername }, 'bootstrap');
    // Printed once, on the terminal only: the generated password never goes into the JSON log stream.
    if (admin.generatedPassword) {
      process.stderr.write(
        `\nCreated superuser "${config.adminUsername}" with generated password: ${admin.generatedPassword}\n` +
          'It is shown only this once. Change it with: npm run manage -- changepassword ' + config.adminUsername + '\n\n',
      );
    }
  }
  stopOnSignals(app, logger);
  await app.listen(config.port, config.host);
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  logSink.write(JSON.stringify({ time: new Date().toISOString(), level: 'info', event: 'listening', url: `http://${host}:${port}/`, public_url: config.publicUrl }));
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
  const message = err instanceof ConfigError ? err.message : String(err?.message ?? err);
  process.stderr.write(`automation-service: failed to start: ${message}\n`);
  process.exit(1);
});
