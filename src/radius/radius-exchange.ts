import { createSocket } from 'node:dgram';
import { lookup } from 'node:dns/promises';
import { AccessRequest, Discarded, RadiusReply, verifiedReply } from './radius-packets';

/** Where an Access-Request goes and how long its answer is awaited (RADIUS_TIMEOUT, RADIUS_RETRIES). */
export interface RadiusTarget {
  server: string;
  port: number;
  secret: string;
  timeoutMs: number;
  retries: number;
}

/** A reply that counted, with what came before it. */
export interface Answered {
  reply: RadiusReply;
  transmissions: number;
  discarded: Discarded[];
}

/** No reply counted within (RADIUS_RETRIES + 1) × RADIUS_TIMEOUT, or the server's name does not resolve. */
export class RadiusUnanswered extends Error {
  constructor(
    readonly why: string,
    readonly transmissions: number,
    readonly discarded: Discarded[],
  ) {
    super(why);
  }
}

/** What a wait saw, in words (for the explainer's steps and the log's reason; never a secret or password). */
export function discardedText(discarded: Discarded[]): string {
  if (!discarded.length) return '';
  const counts = new Map<Discarded, number>();
  for (const reason of discarded) counts.set(reason, (counts.get(reason) ?? 0) + 1);
  return [...counts].map(([reason, count]) => `${count} × ${reason.replace(/_/g, ' ')}`).join(', ');
}

/**
 * Sends one Access-Request and waits for its reply (SPEC §20): a datagram counts only when it comes from
 * the server's address and port and verifies (`verifiedReply`); anything else is dropped silently and the
 * wait goes on. Each RADIUS_TIMEOUT without a reply sends the very same packet again (same Identifier and
 * Request Authenticator, so that a server that answered a lost reply's request answers it alike), at most
 * RADIUS_RETRIES times. A socket of its own per attempt: its ephemeral port is the attempt's, so no two
 * attempts share an Identifier space. `note` hears each transmission and each datagram dropped.
 */
export async function exchange(target: RadiusTarget, request: AccessRequest, note?: (line: string) => void): Promise<Answered> {
  let address: string;
  let family: number;
  try {
    ({ address, family } = await lookup(target.server));
  } catch (err) {
    throw new RadiusUnanswered(`the server name ${target.server} does not resolve (${(err as NodeJS.ErrnoException).code ?? 'error'})`, 0, []);
  }
  const socket = createSocket(family === 6 ? 'udp6' : 'udp4');
  const where = `${target.server}:${target.port}`;
  return new Promise<Answered>((resolve, reject) => {
    const discarded: Discarded[] = [];
    let transmissions = 0;
    let timer: NodeJS.Timeout | undefined;
    let done = false;
    const finish = (settle: () => void) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.close();
      settle();
    };
    const transmit = () => {
      if (transmissions > target.retries) {
        const seconds = ((target.retries + 1) * target.timeoutMs) / 1000;
        const dropped = discarded.length ? `; dropped: ${discardedText(discarded)}` : '';
        return finish(() => reject(new RadiusUnanswered(`no valid reply from ${where} within ${seconds} s (${transmissions} transmissions${dropped})`, transmissions, discarded)));
      }
      transmissions++;
      note?.(transmissions === 1 ? `Sent the Access-Request to ${where} (${address}).` : `No valid reply within ${target.timeoutMs / 1000} s: sent the same packet again (transmission ${transmissions} of ${target.retries + 1}).`);
      // A send that fails (no route) is one more transmission without a reply: the wait runs its course.
      socket.send(request.packet, target.port, address, (err) => {
        if (err) note?.(`Sending to ${where} failed (${(err as NodeJS.ErrnoException).code ?? err.message}).`);
      });
      timer = setTimeout(transmit, target.timeoutMs);
    };
    socket.on('message', (datagram, from) => {
      const verdict = from.address === address && from.port === target.port ? verifiedReply(request, datagram, target.secret) : 'wrong_source';
      if (typeof verdict !== 'string') return finish(() => resolve({ reply: verdict, transmissions, discarded }));
      discarded.push(verdict);
      note?.(`Dropped a datagram from ${from.address}:${from.port}: ${verdict.replace(/_/g, ' ')}.`);
    });
    // ICMP errors and the like are not replies: the wait goes on (SPEC §20: no valid reply in time is a 503).
    socket.on('error', (err) => note?.(`Socket error: ${(err as NodeJS.ErrnoException).code ?? err.message}.`));
    transmit();
  });
}
