import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';
import { Clock } from '../common/clock';
import { RequestTrace } from '../common/request-context';
import type { ProvenIdentity } from '../external-logins/external-method';
import { ExternalLogins } from '../external-logins/external-logins.service';
import type { AccountRefusal } from '../users/account-policy';
import { User } from '../users/user.entity';
import { cleanUsername } from '../users/usernames';
import { InactiveAccounts } from '../users/inactive-accounts';
import { UsersService } from '../users/users.service';
import type { ExternalIdentity } from './external-identity';
import { SocialAuth } from './social-auth.entity';
import { SSO_ACCOUNT } from './sso-login-method';
import { SsoFailure } from './sso-failure';

/** The log's words for each account refusal of an SSO login. */
const SSO_REFUSALS: Record<AccountRefusal, string> = {
  user_disabled: 'user is inactive',
  local_auth_disabled: 'local authentication is disabled',
  service_account: 'service accounts cannot log in',
  account_expired: 'account has expired',
};

/**
 * SSO logins on the external-login pipeline (SPEC §7, issue 55). A user is found only through the
 * (provider, uid) link, never by username or email, so an identity provider cannot take over a local account
 * or one linked to another provider (ASVS 6.8.1); a first login's taken name gets "-2", "-3"...
 */
@Injectable()
export class SsoUsers {
  constructor(
    @InjectRepository(SocialAuth) private readonly links: Repository<SocialAuth>,
    private readonly users: UsersService,
    private readonly pipeline: ExternalLogins,
    private readonly clock: Clock,
    private readonly inactivity: InactiveAccounts,
  ) {}

  /** The user of a completed SSO login; a refusal is the login page's alert. */
  async resolve(identity: ExternalIdentity, trace: RequestTrace): Promise<User> {
    const result = await this.pipeline.login(provenOf(identity), null, trace);
    // SPEC §22: an idle user the provider proved is deactivated now, and refused as disabled.
    if ('user' in result && (await this.inactivity.enforce(result.user, trace))) throw new SsoFailure('disabled', 'inactive for ACCOUNT_INACTIVE_DAYS', result.user);
    if ('user' in result) return result.user;
    if (result.refused === 'account') throw new SsoFailure(result.why === 'account_expired' ? 'expired' : 'inactive', SSO_REFUSALS[result.why], result.holder);
    if (result.refused === 'maps') throw new SsoFailure('not_allowed', `refused by ${result.refusedBy}`, result.holder);
    throw new SsoFailure('no_identity', result.refused === 'no_free_name' ? 'no free username' : result.refused);
  }

  /** The user linked to `key` (the pipeline's holder hook). */
  async holderOf(key: string): Promise<User | null> {
    const [provider, uid] = JSON.parse(key) as [string, string];
    const link = await this.links.findOneBy({ provider, uid });
    return link ? this.users.findById(link.userId) : null;
  }

  /** A first login's link (a unique violation: the same identity's first login won on another request). */
  async link(user: User, proven: ProvenIdentity): Promise<void> {
    const [provider, uid] = JSON.parse(proven.key!) as [string, string];
    await this.links.insert({ userId: user.id, provider, uid, created: this.clock.now() });
  }

  /** The linked identities of each user, for the users API's `auth` field. */
  async identitiesOf(userIds: number[]): Promise<Map<number, { provider: string; uid: string }[]>> {
    const out = new Map<number, { provider: string; uid: string }[]>();
    if (!userIds.length) return out;
    const rows = await this.links.find({ where: { userId: In(userIds) }, order: { id: 'ASC' } });
    for (const row of rows) out.set(row.userId, [...(out.get(row.userId) ?? []), { provider: row.provider, uid: row.uid }]);
    return out;
  }
}

/** What the provider proved: the link as the holder's key, names and email kept in step, the claims for the maps. */
function provenOf(identity: ExternalIdentity): ProvenIdentity {
  const colon = identity.provider.indexOf(':');
  const claims = identity.claims ?? { username: identity.username ?? '', email: identity.email ?? null, groups: [], attributes: {} };
  return {
    account: SSO_ACCOUNT,
    source: { family: identity.provider.slice(0, colon), instance: identity.provider.slice(colon + 1) },
    key: JSON.stringify([identity.provider, identity.uid]),
    username: cleanUsername(identity.username) || cleanUsername(identity.email?.split('@')[0]) || 'user',
    freeName: true,
    fields: { first_name: identity.firstName, last_name: identity.lastName, email: identity.email },
    claims,
    vouchedBy: { provider: identity.provider },
  };
}
