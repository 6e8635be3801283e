import { lookup } from 'node:dns/promises';
import { connect } from 'node:net';
import { Controller, Get, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PermissionDenied } from '../common/errors';
import { CurrentPrincipal, Principal } from '../common/principal';
import { LogForwarder } from './log-forwarder';
import { socketHost } from './log-transports';

/** AWX's probe of a tcp receiver: half a second to connect. */
const PROBE_MS = 500;

function probeTcp(host: string, port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (why?: string) => {
      socket.destroy();
      resolve(why);
    };
    socket.setTimeout(PROBE_MS, () => done('timed out'));
    socket.once('connect', () => done());
    socket.once('error', (err) => done(err.message));
  });
}

/**
 * `POST /api/v2/settings/logging/test/` (AWX's SettingLoggingTest, SPEC §23): superusers only; 409 while
 * forwarding is off; otherwise the ERROR record "AWX Connection Test Message" on the first configured logger,
 * then AWX's checks: a port for tcp and udp, a tcp receiver that accepts a connection. https and udp are not probed.
 */
@Controller('api/v2/settings/logging/test')
export class LoggingTestController {
  constructor(private readonly forwarder: LogForwarder) {}

  @Post()
  async test(@CurrentPrincipal() principal: Principal, @Res({ passthrough: true }) res: FastifyReply): Promise<Record<string, unknown> | undefined> {
    if (!principal.user.isSuperuser) throw new PermissionDenied();
    const settings = this.forwarder.current();
    if (!settings.enabled) {
      res.code(409);
      return { error: 'Logging not enabled' };
    }
    const first = settings.loggers[0] ?? 'awx';
    const loggerName = first === 'awx' ? 'awx' : `awx.analytics.${first}`;
    this.forwarder.submit({ logger: first, loggerName, level: 'ERROR', message: 'AWX Connection Test Message', fields: {}, at: new Date() });
    if (settings.protocol !== 'https') {
      if (settings.port === null) {
        res.code(400);
        return { error: `Port required for ${settings.protocol}` };
      }
      const host = socketHost(settings.host!);
      const why = settings.protocol === 'tcp' ? await probeTcp(host, settings.port) : await lookup(host).then(() => undefined, (err: Error) => err.message);
      if (why) {
        res.code(400);
        return { error: why };
      }
    }
    res.code(202);
    return undefined;
  }

  /** The route takes POST only (AWX's view), as §1's 405 says. */
  @Get()
  refuse(@Req() req: FastifyRequest, @Res() res: FastifyReply): void {
    res.code(405).header('Allow', 'POST, OPTIONS').send({ detail: `Method "${req.method}" not allowed.` });
  }
}
