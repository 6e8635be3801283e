import 'reflect-metadata';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';

/**
 * The framework's floor for `npm run bench`: an empty Nest 12 app on Fastify 5 (the adapter the service
 * runs on) with one controller answering the bare route's JSON. Whatever the service's ping costs above
 * this row is the service's own pipeline; below it is Nest and Fastify themselves.
 */
@Controller()
class PingController {
  @Get('/')
  ping() {
    return { ha: false, version: 'x', active_node: 'localhost' };
  }
}

@Module({ controllers: [PingController] })
class EmptyModule {}

async function main(): Promise<void> {
  const app = await NestFactory.create<NestFastifyApplication>(EmptyModule, new FastifyAdapter(), { logger: false });
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : 0;
  process.stdout.write(`listening http://127.0.0.1:${port}\n`);
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
}

void main();
