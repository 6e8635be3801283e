import { Injectable, Logger } from '@nestjs/common';
import type { RequestTrace } from '../common/request-context';
import type { User } from './user.entity';
import { UserInput, UsersService } from './users.service';

export type ProvisionedField = 'first_name' | 'last_name' | 'email';
export type ProvisionedFlag = 'is_superuser' | 'is_system_auditor';

/**
 * What a login method learnt of a user at a login (issue 39): attributes in. Only what it sends is kept in
 * step: a field or flag left out is left as it is (a method that maps no flag never clears one).
 */
export interface ProvisioningInput {
  /** The `external_account` of the method's users. */
  account: string;
  /** Which of the method's sources vouched, as its log lines name it (`{ directory: "1" }`, `{ provider: "oidc:corp" }`). */
  source: Record<string, string>;
  /** The event prefix of the method's log lines (`<prefix>_user_created`, `<prefix>_user_updated`). */
  event: string;
  fields: Partial<Record<ProvisionedField, string>>;
  flags: Partial<Record<ProvisionedFlag, boolean>>;
  /** Method-owned columns of the user (a directory entry's DN), kept in step like the fields. */
  owned?: Partial<Pick<UserInput, 'ldap_dn'>>;
}

/** What a login would change: the preview the explainers print, and what `apply` writes. */
export interface ProvisioningPlan {
  create: boolean;
  changes: Partial<UserInput>;
}

const FIELD_OF: Record<ProvisionedField, 'firstName' | 'lastName' | 'email'> = { first_name: 'firstName', last_name: 'lastName', email: 'email' };
const FLAG_OF: Record<ProvisionedFlag, 'isSuperuser' | 'isSystemAuditor'> = { is_superuser: 'isSuperuser', is_system_auditor: 'isSystemAuditor' };
/** The users API's limits (SPEC §8): an identity source's longer value is cut to fit, never refused. */
const FIELD_MAX: Record<ProvisionedField, number> = { first_name: 150, last_name: 150, email: 254 };

/**
 * The one provisioning step every login method that vouches for a user goes through (LDAP, single sign-on,
 * and any method added later): the user and its flags out of the attributes in, created at the first login
 * and kept in step at every later one, with a plan that the explainers print without writing. Finding the
 * user (by a directory entry, by a provider's link) stays with the method; what a login changes is here.
 */
@Injectable()
export class Provisioning {
  private readonly logger = new Logger('auth');

  constructor(private readonly users: UsersService) {}

  /** What a login of `input` would do to `user` (null: a first login, which creates one). */
  plan(user: User | null, input: ProvisioningInput): ProvisioningPlan {
    const wanted: Partial<UserInput> = { ...input.owned };
    for (const [field, value] of Object.entries(input.fields) as [ProvisionedField, string | undefined][]) {
      if (value !== undefined) wanted[field] = value.slice(0, FIELD_MAX[field]);
    }
    for (const [flag, value] of Object.entries(input.flags) as [ProvisionedFlag, boolean | undefined][]) if (value !== undefined) wanted[flag] = value;
    if (!user) return { create: true, changes: wanted };
    const changes: Partial<UserInput> = {};
    for (const [key, value] of Object.entries(wanted) as [keyof UserInput, unknown][]) {
      if (current(user, key) !== value) (changes as Record<string, unknown>)[key] = value;
    }
    return { create: false, changes };
  }

  /** The plan in words, for an explainer (never a secret: attributes and flags only). */
  describe(user: User | null, plan: ProvisioningPlan, username: string, account: string): string {
    const changes = Object.entries(plan.changes).map(([key, value]) =>
      typeof value === 'boolean' ? `${key} ${value ? 'set' : 'cleared'}` : user ? `${key} "${String(current(user, key as keyof UserInput) ?? '')}" → "${String(value)}"` : `${key} "${String(value)}"`,
    );
    if (plan.create) return `It would create the user "${username}" (external_account "${account}"${changes.length ? `; ${changes.join(', ')}` : ''}).`;
    return changes.length ? `It would update "${user!.username}": ${changes.join(', ')}.` : `"${user!.username}" is already in step with its identity source.`;
  }

  /** A first login: the user, with the attributes and flags it came with; throws as the users API does on a taken name. */
  async create(username: string, input: ProvisioningInput, trace: RequestTrace): Promise<User> {
    const user = await this.users.create({ ...this.plan(null, input).changes, username }, trace, { externalAccount: input.account });
    this.created(user, input, trace);
    return user;
  }

  /** A first login whose name is the method's suggestion: `name`, else `name-2`, `name-3`…; null when none is free. */
  async createWithFreeUsername(base: string, input: ProvisioningInput, trace: RequestTrace): Promise<User | null> {
    const user = await this.users.createWithFreeUsername(base, this.plan(null, input).changes, trace, { externalAccount: input.account });
    if (user) this.created(user, input, trace);
    return user;
  }

  /** A later login: the user brought in step with what the method sent this time. */
  async refresh(user: User, input: ProvisioningInput, trace: RequestTrace): Promise<User> {
    const { changes } = this.plan(user, input);
    if (!Object.keys(changes).length) return user;
    this.logger.log({ event: `${input.event}_user_updated`, ...input.source, user_id: user.id, fields: Object.keys(changes), ...trace });
    return this.users.update(user, changes, trace);
  }

  /** Undoes a first login whose later half failed (the maps' transaction): a failed login leaves no user (SPEC §1). */
  async discard(user: User, trace: RequestTrace): Promise<void> {
    await this.users.remove(user, trace);
  }

  private created(user: User, input: ProvisioningInput, trace: RequestTrace): void {
    this.logger.log({ event: `${input.event}_user_created`, ...input.source, user_id: user.id, username: user.username, ...trace });
  }
}

function current(user: User, key: keyof UserInput): unknown {
  if (key in FIELD_OF) return user[FIELD_OF[key as ProvisionedField]];
  if (key in FLAG_OF) return user[FLAG_OF[key as ProvisionedFlag]];
  if (key === 'ldap_dn') return user.ldapDn;
  return undefined;
}
