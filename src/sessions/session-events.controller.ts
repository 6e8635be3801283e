import { Controller, Get, Res } from '@nestjs/common';
import { ApiProduces } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { ServerResponse } from 'node:http';
import { Clock } from '../common/clock';
import { BadRequest } from '../common/errors';
import { CurrentPrincipal, Principal } from '../common/principal';
import { SESSION_EVENTS_PATH } from './quiet-session';
import { SESSION_END_MESSAGES } from './session-end-reason';
import { SessionChange, SessionWatcher } from './session-watcher.service';
import { SessionsService } from './sessions.service';

/** A comment line now and then keeps proxies and load balancers from closing an idle stream. */
const HEARTBEAT_MS = 20000;
/** How long an EventSource waits before reconnecting after the stream drops. */
const RETRY_MS = 3000;

/**
 * `GET /api/v2/me/session/events/`: server-sent events about the caller's own browser session, so
 * a page left open learns within seconds that it was ended elsewhere, and why (SPEC §13).
 * Events: `session` `{"expires_in": s}` on connect and whenever the idle expiry moves;
 * `ended` `{"reason", "detail"}` once, after which the stream closes. The route is quiet: watching
 * a session never slides it (see quiet-session.ts).
 */
@Controller(SESSION_EVENTS_PATH)
export class SessionEventsController {
  constructor(
    private readonly watcher: SessionWatcher,
    private readonly sessions: SessionsService,
    private readonly clock: Clock,
  ) {}

  @Get()
  @ApiProduces('text/event-stream')
  async events(@CurrentPrincipal() principal: Principal, @Res() reply: FastifyReply): Promise<void> {
    const found = principal.method === 'session' && principal.credentialId !== undefined
      ? await this.sessions.findById(principal.credentialId)
      : null;
    if (!found) throw new BadRequest('Session events follow a browser session; this request was not authenticated by one.');
    // The stream is written on the Node response directly; the pipeline's headers are already on it.
    reply.hijack();
    const res = reply.raw;
    res.statusCode = 200;
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    // Tells nginx-style proxies not to buffer the stream.
    res.setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders();
    res.socket?.setNoDelay(true);
    res.write(`retry: ${RETRY_MS}\n`);
    send(res, 'session', { expires_in: this.sessions.secondsLeft(found, this.clock.now()) });
    const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
    heartbeat.unref();
    const stop = this.watcher.watch(found, (change: SessionChange) => {
      if (change.type === 'expires') return send(res, 'session', { expires_in: change.expiresIn });
      if (change.type === 'ended') {
        send(res, 'ended', { reason: change.reason, detail: change.reason ? SESSION_END_MESSAGES[change.reason] : 'Your session has ended.' });
      }
      clearInterval(heartbeat);
      res.end();
    });
    res.on('close', () => {
      clearInterval(heartbeat);
      stop();
    });
  }
}

function send(res: ServerResponse, event: string, data: unknown): void {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}
