import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { isIP } from 'node:net';

/**
 * The client address as the service records and throttles it (SPEC §1): the address the HTTP server
 * derived (after TRUSTED_PROXIES) when it is a valid IP address, else the peer's own address. A trusted
 * proxy that forwards an `X-Forwarded-For` of garbage (or 200 characters of it) never gets that text into
 * a column, a throttle key or a log line.
 */
export function clientIp(req: { ip?: string; socket?: { remoteAddress?: string } }): string {
  const derived = req.ip ?? '';
  if (isIP(derived)) return derived;
  const peer = req.socket?.remoteAddress ?? '';
  return isIP(peer) ? peer : '';
}

/** The caller's address in a route handler, as `clientIp` reads it. */
export const ClientAddress = createParamDecorator((_: unknown, ctx: ExecutionContext): string => clientIp(ctx.switchToHttp().getRequest()));

/** The client of a request as SPEC §23's records name it: its address and User-Agent. */
export interface RequestClient {
  ipAddress: string;
  userAgent: string;
}

export const CurrentClient = createParamDecorator((_: unknown, ctx: ExecutionContext): RequestClient => {
  const req = ctx.switchToHttp().getRequest<{ ip?: string; socket?: { remoteAddress?: string }; headers?: Record<string, string | string[] | undefined> }>();
  return { ipAddress: clientIp(req), userAgent: userAgentOf(req) };
});

/** The client's User-Agent as the records keep it (SPEC §23: at most 512 characters); "" when none was sent. */
export function userAgentOf(req: { headers?: Record<string, string | string[] | undefined> }): string {
  const sent = req.headers?.['user-agent'];
  return (typeof sent === 'string' ? sent : '').slice(0, 512);
}
