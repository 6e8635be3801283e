// The service's V8 setting, first, as main.ts has it: the floors run on the runtime the service runs on.
import '../src/common/no-pretenuring';
import 'reflect-metadata';
import { CanActivate, Controller, ExecutionContext, Get, Injectable, Module, Req, UnauthorizedException, UseGuards } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AuthGuard, PassportModule, PassportStrategy } from '@nestjs/passport';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { Strategy as HttpBearerStrategy } from 'passport-http-bearer';
import { constantTimeEqual } from '../src/common/secret-box';
import { FLOOR_TOKEN } from './support';

/**
 * The framework's floor for `npm run bench`: an empty Nest 12 app on Fastify 5 (the adapter the service
 * runs on) with one controller answering the bare route's JSON. Whatever the service's ping costs above
 * this row is the service's own pipeline; below it is Nest and Fastify themselves.
 *
 * Two more routes price an authenticated row's parts without the service (issue 43): `GET /page` answers a
 * body of the service's /api/v2/me/ shape and size, and `GET /me` the same behind the card's bearer chain
 * and nothing else: @nestjs/passport's AuthGuard over a `PassportStrategy(passport-http-bearer)` whose
 * `validate()` compares the token with one held in memory (no database). `/me`'s ratio to this app's `/` is
 * the most an authenticated row can reach against a ping while the card's packages authenticate it and the
 * page is written, with no lookup at all. `GET /me-plain` is the same page behind a hand-written guard that
 * makes the same comparison with no passport at all: the distance between the two is what the card's packages
 * cost; the distance from `/page` to `/me-plain` is what any guard on Nest costs.
 */
const USER = { id: 1, username: 'admin', created: new Date(), modified: new Date(), lastLogin: new Date() };

@Injectable()
class MemoryBearerStrategy extends PassportStrategy(HttpBearerStrategy, 'bearer') {
  validate(token: string): typeof USER {
    if (!constantTimeEqual(token, FLOOR_TOKEN)) throw new UnauthorizedException();
    return USER;
  }
}

/** The same check as MemoryBearerStrategy in a plain synchronous guard: no AuthGuard, no passport. */
@Injectable()
class PlainBearerGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<{ headers: Record<string, string | undefined>; user?: typeof USER }>();
    const header = req.headers.authorization ?? '';
    if (!constantTimeEqual(header.startsWith('Bearer ') ? header.slice(7) : '', FLOOR_TOKEN)) throw new UnauthorizedException();
    req.user = USER;
    return true;
  }
}

@Controller()
class PingController {
  @Get('/')
  ping() {
    return { ha: false, version: 'x', active_node: 'localhost' };
  }

  /** The service's /api/v2/me/ page for the admin (674 bytes), without authentication: what the page costs. */
  @Get('page')
  page() {
    return mePage(USER);
  }

  /** The same page behind the card's bearer chain. */
  @Get('me')
  @UseGuards(AuthGuard('bearer'))
  me(@Req() req: { user: typeof USER }) {
    return mePage(req.user);
  }

  /** The same page behind a hand-written guard (no passport). */
  @Get('me-plain')
  @UseGuards(PlainBearerGuard)
  mePlain(@Req() req: { user: typeof USER }) {
    return mePage(req.user);
  }
}

/** The /api/v2/me/ page's shape, built on every request as the service builds it. */
function mePage(user: typeof USER) {
  const url = `/api/v2/users/${user.id}/`;
  const related = { sessions: `${url}sessions/`, tokens: `${url}tokens/`, personal_tokens: `${url}personal_tokens/`, authorized_tokens: `${url}authorized_tokens/` };
  const result = {
    id: user.id, type: 'user', url, related, summary_fields: { user_capabilities: { edit: true, delete: false } },
    created: user.created.toISOString(), modified: user.modified.toISOString(), username: user.username,
    first_name: '', last_name: '', email: '', is_active: true, is_superuser: true, is_system_auditor: false, password: '$encrypted$',
    last_login: user.lastLogin.toISOString(), external_account: null, ldap_dn: '', auth: [],
  };
  return { count: 1, next: null, previous: null, results: [result] };
}

@Module({ imports: [PassportModule], controllers: [PingController], providers: [MemoryBearerStrategy, PlainBearerGuard] })
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
