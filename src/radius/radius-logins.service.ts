import { Injectable } from '@nestjs/common';
import type { PasswordProof } from '../external-logins/external-method';
import { textAttributes } from '../maps/claims-record';
import { SettingsService } from '../settings/settings.service';
import { BackendAttempt, PasswordBackend, PasswordBackendUnavailable } from '../users/login-methods';
import { MAX_USERNAME, USERNAME } from '../users/usernames';
import { discardedText, exchange, RadiusUnanswered } from './radius-exchange';
import { ACCESS_ACCEPT, accessRequest, MAX_ATTRIBUTE_OCTETS, MAX_PASSWORD_OCTETS, RadiusReply } from './radius-packets';
import { RadiusConfig, radiusConfig } from './radius-settings';

export const RADIUS_ACCOUNT = 'radius';
/** SPEC §20: the answer while no valid reply comes in time. */
export const RADIUS_UNAVAILABLE = 'The RADIUS server is unavailable; try again later.';
/** What the log events name as the source that decided. */
const SOURCE = 'radius';

const octets = (text: string) => Buffer.byteLength(text, 'utf8');

const UNSENT: Record<string, string> = {
  invalid_username: 'is not a valid username (letters, digits and @ . + - _, at most 150)',
  username_too_long: 'is longer than a User-Name can be (253 octets)',
  empty_password: 'comes with an empty password',
  password_too_long: 'comes with a password over 128 octets (RFC 2865 §5.2)',
};

/**
 * Why a login never sends this name and password (SPEC §20), or null: a name the users API could not hold
 * (a user an Access-Accept could not create), one too long for User-Name, and a password that is empty or
 * over 128 octets (RFC 2865 §5.2). Each is refused like a wrong password.
 */
export function unsendable(username: string, password: string): string | null {
  if (!username || username.length > MAX_USERNAME || !USERNAME.test(username)) return 'invalid_username';
  if (octets(username) > MAX_ATTRIBUTE_OCTETS) return 'username_too_long';
  if (password === '') return 'empty_password';
  if (octets(password) > MAX_PASSWORD_OCTETS) return 'password_too_long';
  return null;
}

/**
 * RADIUS as a password method (SPEC §20): the proof of an attempt by one Access-Request and its verified
 * reply, and what an Access-Accept vouches for. Everything after the proof (the user of the name, the maps
 * and RADIUS_USER_FLAGS_BY_ATTR through them, creation) is the external-login pipeline's.
 */
@Injectable()
export class RadiusLogins {
  constructor(private readonly settings: SettingsService) {}

  config(): RadiusConfig {
    return radiusConfig((key) => this.settings.get(key));
  }

  configured(): boolean {
    return this.settings.get<string>('RADIUS_SERVER') !== '';
  }

  /** The login method RADIUS users come in by (registered by RadiusModule). */
  method(): Omit<PasswordBackend, 'strategy'> {
    return {
      account: RADIUS_ACCOUNT,
      label: 'RADIUS',
      provesPassword: true,
      person: true,
      remote: true,
      configured: () => this.configured(),
      // SPEC §20: the server owns the name and the password; the flags it maps are set at every login.
      managedFields: () => ['username', 'password'],
      // Off, nothing proves a RADIUS user: not even basic's memory of an earlier Accept.
      repeatTtlMs: () => (this.configured() ? this.settings.get<number>('RADIUS_CACHE_SECONDS') * 1000 : 0),
    };
  }

  async prove(attempt: BackendAttempt, { note }: { note?: (line: string) => void }): Promise<PasswordProof> {
    const config = this.config();
    const { username, password } = attempt;
    const unanswered = { reply: null, attributes: {} };
    // A user RADIUS created is proven only by RADIUS: while it is off, refused like a wrong password.
    if (!config.server) {
      note?.('RADIUS is off (RADIUS_SERVER is ""): a login of a RADIUS user is refused like a wrong password, and other names are never sent.');
      return { refused: 'radius_off', source: SOURCE, explained: unanswered };
    }
    const unsent = unsendable(username, password);
    if (unsent) {
      note?.(`The login ${UNSENT[unsent]}: refused like a wrong password, without a request.`);
      return { refused: unsent, source: null, explained: unanswered };
    }
    note?.(
      `An Access-Request for "${username}" to ${config.server}:${config.port}: Message-Authenticator first, NAS-Identifier "${config.nasIdentifier}"; ` +
        `${config.timeoutMs / 1000} s for each transmission, at most ${config.retries} retransmissions.`,
    );
    const request = accessRequest({ username, password, nasIdentifier: config.nasIdentifier, secret: config.secret });
    let answered;
    try {
      answered = await exchange({ server: config.server, port: config.port, secret: config.secret, timeoutMs: config.timeoutMs, retries: config.retries }, request, note);
    } catch (err) {
      if (err instanceof RadiusUnanswered) throw new PasswordBackendUnavailable(SOURCE, err.why, RADIUS_UNAVAILABLE);
      throw err;
    }
    const { reply, discarded } = answered;
    const explained = { reply: reply.code, attributes: reply.attributes };
    note?.(`Reply: ${reply.code} from ${config.server}:${config.port}, its Response Authenticator and Message-Authenticator verified.`);
    if (reply.code !== ACCESS_ACCEPT) {
      // Access-Reject, Access-Challenge (no challenge page here) and any other code: a wrong password.
      const dropped = discarded.length ? `; dropped before it: ${discardedText(discarded)}` : '';
      if (reply.code === 'Access-Challenge') note?.('The server wants another round, and the service has no challenge page.');
      return { refused: `${reply.code} from ${config.server}:${config.port}${dropped}`, source: SOURCE, explained };
    }
    return { proven: radiusIdentity(username, reply), source: SOURCE, explained };
  }
}

/**
 * What an Access-Accept vouches for: the name as sent (no name or email: RADIUS sends none), its attributes by
 * RFC 2865 name (the maps read RADIUS_USER_FLAGS_BY_ATTR on them), its `Class` values as groups.
 */
function radiusIdentity(username: string, reply: RadiusReply) {
  return {
    account: RADIUS_ACCOUNT,
    source: { family: RADIUS_ACCOUNT, instance: null },
    username,
    fields: {},
    claims: { username, email: null, groups: reply.attributes.Class ?? [], attributes: textAttributes(reply.attributes) },
    vouchedBy: { server: SOURCE },
  };
}
