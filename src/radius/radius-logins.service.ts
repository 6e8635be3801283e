import { Injectable } from '@nestjs/common';
import { FieldErrors } from '../common/errors';
import type { RequestTrace } from '../common/request-context';
import { isUniqueViolation } from '../database/errors';
import { SettingsService } from '../settings/settings.service';
import { BackendAttempt, BackendOutcome, PasswordBackend, PasswordBackendUnavailable } from '../users/login-methods';
import { AccessRefused } from '../maps/access-refused';
import { textAttributes } from '../maps/claims-record';
import { LoginAccess, MapsService } from '../maps/maps.service';
import { ProvisioningInput } from '../users/provisioning';
import type { User } from '../users/user.entity';
import { MAX_USERNAME, USERNAME } from '../users/usernames';
import { UsersService } from '../users/users.service';
import { Answered, discardedText, exchange, RadiusUnanswered } from './radius-exchange';
import { flagChanges, flagVerdicts } from './radius-flags';
import { ACCESS_ACCEPT, accessRequest, MAX_ATTRIBUTE_OCTETS, MAX_PASSWORD_OCTETS, RadiusReply } from './radius-packets';
import { RadiusConfig, radiusConfig } from './radius-settings';

export const RADIUS_ACCOUNT = 'radius';
/** The Passport strategy that proves a password with the RADIUS server (RadiusStrategy). */
export const RADIUS_STRATEGY = 'radius';
/** SPEC §20: the answer while no valid reply comes in time. */
export const RADIUS_UNAVAILABLE = 'The RADIUS server is unavailable; try again later.';
/** What the log events name as the source that decided. */
const SOURCE = 'radius';

const octets = (text: string) => Buffer.byteLength(text, 'utf8');

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
 * RADIUS logins (SPEC §20): the password method behind the one password check (which keeps other sources'
 * names away from it, asks LDAP first, and counts every attempt before this sends anything), first-login
 * creation, and the flags of RADIUS_USER_FLAGS_BY_ATTR kept in step at every Access-Accept.
 */
@Injectable()
export class RadiusLogins {
  constructor(
    private readonly settings: SettingsService,
    private readonly users: UsersService,
    private readonly maps: MapsService,
  ) {}

  config(): RadiusConfig {
    return radiusConfig((key) => this.settings.get(key));
  }

  configured(): boolean {
    return this.settings.get<string>('RADIUS_SERVER') !== '';
  }

  /** The login method RADIUS users come in by (registered by RadiusModule). */
  method(): PasswordBackend {
    return {
      account: RADIUS_ACCOUNT,
      label: 'RADIUS',
      provesPassword: true,
      person: true,
      remote: true,
      configured: () => this.configured(),
      strategy: RADIUS_STRATEGY,
      // SPEC §20: the server owns the name and the password; the flags it maps are set at every login.
      managedFields: () => ['username', 'password'],
      // Off, nothing proves a RADIUS user: not even basic's memory of an earlier Accept.
      repeatTtlMs: () => (this.configured() ? this.settings.get<number>('RADIUS_CACHE_SECONDS') * 1000 : 0),
    };
  }

  /** The Access-Request a login sends, and its reply (or RadiusUnanswered). */
  ask(config: RadiusConfig, username: string, password: string, note?: (line: string) => void): Promise<Answered> {
    const request = accessRequest({ username, password, nasIdentifier: config.nasIdentifier, secret: config.secret });
    return exchange({ server: config.server, port: config.port, secret: config.secret, timeoutMs: config.timeoutMs, retries: config.retries }, request, note);
  }

  /** What an Access-Accept vouches for: no name or email (RADIUS sends none), the mapped flags. */
  provisioningInput(config: RadiusConfig, reply: RadiusReply): ProvisioningInput {
    return {
      account: RADIUS_ACCOUNT,
      source: { server: `${config.server}:${config.port}` },
      event: 'radius',
      fields: {},
      flags: flagChanges(flagVerdicts(config.flags, reply.attributes)),
    };
  }

  async authenticate(attempt: BackendAttempt, existing: User | null): Promise<BackendOutcome> {
    const config = this.config();
    // A user RADIUS created is proven only by RADIUS: while it is off, refused like a wrong password.
    if (!config.server) return { refused: 'radius_off', source: SOURCE };
    const unsent = unsendable(attempt.username, attempt.password);
    if (unsent) return { refused: unsent, source: null };
    let answered: Answered;
    try {
      answered = await this.ask(config, attempt.username, attempt.password);
    } catch (err) {
      if (err instanceof RadiusUnanswered) throw new PasswordBackendUnavailable(SOURCE, err.why, RADIUS_UNAVAILABLE);
      throw err;
    }
    const { reply, discarded } = answered;
    if (reply.code !== ACCESS_ACCEPT) {
      // Access-Reject, Access-Challenge (no challenge page here) and any other code: a wrong password.
      const dropped = discarded.length ? `; dropped before it: ${discardedText(discarded)}` : '';
      return { refused: `${reply.code} from ${config.server}:${config.port}${dropped}`, source: SOURCE };
    }
    let user: User | null;
    try {
      user = await this.apply(attempt.username, existing, this.provisioningInput(config, reply), radiusAccess(attempt.username, reply), attempt.trace);
    } catch (err) {
      // SPEC §21: an allow decision refusing the login answers exactly as a wrong password (and is counted so).
      if (err instanceof AccessRefused) return { refused: `access_refused: ${err.refusedBy}`, source: SOURCE };
      throw err;
    }
    return user ? { user, source: SOURCE } : { refused: 'local_account_name', source: SOURCE };
  }

  /**
   * The user an Access-Accept logs in: the RADIUS user of the name (the password check found it, in any
   * case), else one created now with the name as sent; null when the name was taken meanwhile by another source.
   */
  private async apply(username: string, existing: User | null, input: ProvisioningInput, access: LoginAccess, trace: RequestTrace): Promise<User | null> {
    if (existing) return existing.externalAccount === RADIUS_ACCOUNT ? this.maps.refresh(existing, input, access, trace) : null;
    try {
      return await this.maps.create(username, input, access, trace);
    } catch (err) {
      if (!(err instanceof FieldErrors && err.errors.username) && !isUniqueViolation(err)) throw err;
      // Another first login of the name created it first (or a local user took the name): look again.
      const holder = await this.users.findByUsernameIgnoringCase(username);
      return holder?.externalAccount === RADIUS_ACCOUNT ? this.maps.refresh(holder, input, access, trace) : null;
    }
  }
}

/** What an Access-Accept says for the maps (SPEC §21): its attributes by RFC 2865 name, its `Class` values as groups. */
export function radiusAccess(username: string, reply: RadiusReply): LoginAccess {
  return { source: { family: RADIUS_ACCOUNT, instance: null }, claims: { username, email: null, groups: reply.attributes.Class ?? [], attributes: textAttributes(reply.attributes) } };
}
