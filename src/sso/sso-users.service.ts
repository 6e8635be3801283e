import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';
import { Clock } from '../common/clock';
import { isUniqueViolation } from '../database/errors';
import { AccountPolicy, AccountRefusal } from '../users/account-policy';
import { User } from '../users/user.entity';
import { cleanUsername } from '../users/usernames';
import { UsersService } from '../users/users.service';
import { ProvisioningInput } from '../users/provisioning';
import { AccessRefused } from '../maps/access-refused';
import { LoginAccess, MapsService } from '../maps/maps.service';
import type { ExternalIdentity } from './external-identity';
import { SocialAuth } from './social-auth.entity';
import { SSO_ACCOUNT } from './sso-login-method';
import { SsoFailure } from './sso-failure';
import { RequestTrace } from '../common/request-context';

/** The log's words for each account refusal of an SSO login. */
const SSO_REFUSALS: Record<AccountRefusal, string> = {
  user_disabled: 'user is inactive',
  local_auth_disabled: 'local authentication is disabled',
  service_account: 'service accounts cannot log in',
};

/**
 * First-login provisioning and later refreshes (SPEC §7). A user is found only through the
 * (provider, uid) link, never by username or email, so an identity provider cannot take over a
 * local account or one linked to another provider (ASVS 6.8.1); a taken name gets "-2", "-3"...
 */
@Injectable()
export class SsoUsers {
  constructor(
    @InjectRepository(SocialAuth) private readonly links: Repository<SocialAuth>,
    private readonly users: UsersService,
    private readonly maps: MapsService,
    private readonly policy: AccountPolicy,
    private readonly clock: Clock,
  ) {}

  /** The user of a completed SSO login; an allow decision of the maps refusing it is the login page's alert. */
  async resolve(identity: ExternalIdentity, trace: RequestTrace): Promise<User> {
    try {
      return await this.resolveLinked(identity, trace);
    } catch (err) {
      if (err instanceof AccessRefused) throw new SsoFailure('not_allowed', `refused by ${err.refusedBy}`);
      throw err;
    }
  }

  private async resolveLinked(identity: ExternalIdentity, trace: RequestTrace): Promise<User> {
    const link = await this.links.findOneBy({ provider: identity.provider, uid: identity.uid });
    const user = link ? await this.users.findById(link.userId) : null;
    if (!user) return this.createLinked(identity, trace);
    // The SSO login's validity rule: the linked user passes the account policy (an inactive user is refused).
    const refused = this.policy.refusal(user, 'sso');
    if (refused) throw new SsoFailure('inactive', SSO_REFUSALS[refused]);
    return this.refresh(user, identity, trace);
  }

  /** The linked identities of each user, for the users API's `auth` field. */
  async identitiesOf(userIds: number[]): Promise<Map<number, { provider: string; uid: string }[]>> {
    const out = new Map<number, { provider: string; uid: string }[]>();
    if (!userIds.length) return out;
    const rows = await this.links.find({ where: { userId: In(userIds) }, order: { id: 'ASC' } });
    for (const row of rows) out.set(row.userId, [...(out.get(row.userId) ?? []), { provider: row.provider, uid: row.uid }]);
    return out;
  }

  private async createLinked(identity: ExternalIdentity, trace: RequestTrace): Promise<User> {
    const base = cleanUsername(identity.username) || cleanUsername(identity.email?.split('@')[0]) || 'user';
    const user = await this.maps.createWithFreeUsername(base, provisioningInput(identity), accessOf(identity), trace);
    if (!user) throw new SsoFailure('no_identity', 'no free username');
    try {
      await this.links.insert({ userId: user.id, provider: identity.provider, uid: identity.uid, created: this.clock.now() });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      // The same identity's first login raced us on another request and won: use its user.
      await this.users.remove(user, trace);
      return this.resolveLinked(identity, trace);
    }
    return user;
  }

  /** Names and email follow the provider when it sends them; mapped flags follow the attributes. */
  private refresh(user: User, identity: ExternalIdentity, trace: RequestTrace): Promise<User> {
    return this.maps.refresh(user, provisioningInput(identity), accessOf(identity), trace);
  }
}

/** What the provider said of the user, for the one provisioning step (only what it sent is kept in step). */
function provisioningInput(identity: ExternalIdentity): ProvisioningInput {
  return {
    account: SSO_ACCOUNT,
    source: { provider: identity.provider },
    event: 'sso',
    fields: { first_name: identity.firstName, last_name: identity.lastName, email: identity.email },
    // The flags are the maps' to set (SPEC §21: SOCIAL_AUTH_SAML_USER_FLAGS_BY_ATTR and AUTHENTICATION_MAPS).
    flags: {},
  };
}

/** The source (`saml:<IdP>`, `oidc:<provider>`) and what it sent, for the maps. */
function accessOf(identity: ExternalIdentity): LoginAccess {
  const colon = identity.provider.indexOf(':');
  const claims = identity.claims ?? { username: identity.username ?? '', email: identity.email ?? null, groups: [], attributes: {} };
  return { source: { family: identity.provider.slice(0, colon), instance: identity.provider.slice(colon + 1) }, claims };
}
