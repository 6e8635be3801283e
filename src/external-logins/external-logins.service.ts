import { Injectable } from '@nestjs/common';
import { FieldErrors } from '../common/errors';
import type { RequestTrace } from '../common/request-context';
import { isUniqueViolation } from '../database/errors';
import { AccessRefused } from '../maps/access-refused';
import type { Outcome } from '../maps/map-contract';
import { LoginAccess, MapsService } from '../maps/maps.service';
import { AccountPolicy, AccountRefusal } from '../users/account-policy';
import { LoginMethods } from '../users/login-methods';
import { Provisioning, ProvisioningInput, ProvisionedFlag } from '../users/provisioning';
import type { User } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { ExternalMethods } from './external-methods';
import type { ProvenIdentity } from './external-method';

/** Why the pipeline refused a proven identity (the log's reason; the user sees the method's refusal). */
export type PipelineRefusal =
  | { refused: 'name_held_by_other_method'; holder: User }
  | { refused: 'account'; holder: User; why: AccountRefusal }
  | { refused: 'maps'; holder: User | null; refusedBy: string }
  | { refused: 'no_free_name' }
  | { refused: 'name_taken' };

/** What a login of a proven identity would do, decided without writing: the explainer's answer and the login's plan. */
export interface LoginDecision {
  /** The account this login is (null: a first login, which creates one). */
  holder: User | null;
  refusal: PipelineRefusal | null;
  /** The maps' verdict with the holder's holdings (null when refused before the maps read it). */
  outcome: Outcome | null;
}

/**
 * The one pipeline after a method has proved who someone is (issue 55), for every external method: find the
 * holder (the method's key, else the name compared folded), refuse a name another method holds and an account
 * the policy refuses, the maps' allow decision (a refused holder loses every credential at once), then create
 * (with the retry of a name taken meanwhile) or refresh, and the maps and flags in the one locked transaction
 * with the stored claims. `decide` is the same run without writing, so the explainer cannot disagree with a login.
 */
@Injectable()
export class ExternalLogins {
  constructor(
    private readonly methods: ExternalMethods,
    private readonly logins: LoginMethods,
    private readonly users: UsersService,
    private readonly provisioning: Provisioning,
    private readonly maps: MapsService,
    private readonly policy: AccountPolicy,
  ) {}

  /** A login: the user, logged in as the maps left them, or the refusal; a refused holder's access has ended. */
  async login(proven: ProvenIdentity, existing: User | null, trace: RequestTrace, retry = true): Promise<{ user: User } | PipelineRefusal> {
    const holder = await this.holderOf(proven, existing);
    const before = this.refusalBeforeMaps(proven, holder);
    if (before) return before;
    const access = accessOf(proven, holder);
    const refusedBy = this.maps.refusal(holder, access, trace);
    if (refusedBy) {
      if (holder) await this.maps.revokeAccess(holder, access, refusedBy, trace);
      return { refused: 'maps', holder, refusedBy };
    }
    try {
      if (holder) return { user: await this.maps.apply(await this.provisioning.refresh(holder, this.input(proven), trace), access, trace) };
      const created = await this.create(proven, trace);
      if (!created) return retry ? this.login(proven, null, trace, false) : { refused: 'name_taken' };
      if ('refused' in created) return created;
      return { user: await this.applyToNew(created.user, proven, trace) };
    } catch (err) {
      if (err instanceof AccessRefused) return { refused: 'maps', holder, refusedBy: err.refusedBy };
      throw err;
    }
  }

  /** The same run as `login`, writing nothing: whose login it is, what refuses it, and the maps' verdict. */
  async decide(proven: ProvenIdentity, existing: User | null): Promise<LoginDecision> {
    const holder = await this.holderOf(proven, existing);
    const refusal = this.refusalBeforeMaps(proven, holder);
    if (refusal && refusal.refused === 'name_held_by_other_method') return { holder, refusal, outcome: null };
    const outcome = await this.maps.preview(holder, accessOf(proven, holder));
    if (!outcome.allowed) return { holder, refusal: { refused: 'maps', holder, refusedBy: outcome.refusedBy ?? 'AUTHENTICATION_MAPS' }, outcome };
    return { holder, refusal, outcome };
  }

  /** What the login would change on the user, in words (fields and the flags the maps decided). */
  describeChanges(proven: ProvenIdentity, decision: LoginDecision): string {
    const flags: Partial<Record<ProvisionedFlag, boolean>> = {};
    for (const flag of ['is_superuser', 'is_system_auditor'] as const) {
      const verdict = decision.outcome?.flags[flag];
      if (verdict?.decidedBy) flags[flag] = verdict.after;
    }
    const input = { ...this.input(proven), flags };
    const username = decision.holder?.username ?? proven.username;
    return this.provisioning.describe(decision.holder, this.provisioning.plan(decision.holder, input), username, proven.account);
  }

  /** The holder: the method's key first (one account per directory entry or provider link), else the name folded. */
  private async holderOf(proven: ProvenIdentity, existing: User | null): Promise<User | null> {
    const registered = this.methods.get(proven.account);
    const byKey = proven.key !== undefined && registered?.holderOf ? await registered.holderOf(proven.key) : null;
    if (byKey || proven.freeName) return byKey;
    return existing ?? (await this.users.findByUsernameIgnoringCase(proven.username));
  }

  private refusalBeforeMaps(proven: ProvenIdentity, holder: User | null): PipelineRefusal | null {
    if (!holder) return null;
    const why = this.policy.refusal(holder, this.logins.of(holder).provesPassword ? 'password' : 'sso');
    if (why) return { refused: 'account', holder, why };
    // No takeover (SPEC §14, §20): a name another method (or a local account) holds is never this method's user.
    return holder.externalAccount !== proven.account ? { refused: 'name_held_by_other_method', holder } : null;
  }

  /** A first login's user; null when another login of the same identity made it first (look again). */
  private async create(proven: ProvenIdentity, trace: RequestTrace): Promise<{ user: User } | PipelineRefusal | null> {
    const input = this.input(proven);
    if (proven.freeName) {
      const user = await this.provisioning.createWithFreeUsername(proven.username, input, trace);
      return user ? { user } : { refused: 'no_free_name' };
    }
    try {
      return { user: await this.provisioning.create(proven.username, input, trace) };
    } catch (err) {
      if (!(err instanceof FieldErrors && err.errors.username) && !isUniqueViolation(err)) throw err;
      // The name was taken meanwhile (another login of the same person, or another method): look again.
      return null;
    }
  }

  /** The method's link and the maps for a user just made; a failure removes it, so a failed login leaves nothing (§1). */
  private async applyToNew(user: User, proven: ProvenIdentity, trace: RequestTrace): Promise<User> {
    const link = this.methods.get(proven.account)?.link;
    try {
      if (link) await link(user, proven);
    } catch (err) {
      await this.provisioning.discard(user, trace);
      if (!isUniqueViolation(err)) throw err;
      // The same identity's first login won a race on another request: its user is this login's.
      const holder = await this.holderOf(proven, null);
      if (!holder) throw err;
      return this.maps.apply(await this.provisioning.refresh(holder, this.input(proven), trace), accessOf(proven, holder), trace);
    }
    try {
      return await this.maps.apply(user, accessOf(proven, user), trace);
    } catch (err) {
      await this.provisioning.discard(user, trace);
      throw err;
    }
  }

  private input(proven: ProvenIdentity): ProvisioningInput {
    const event = this.methods.get(proven.account)?.events ?? proven.account;
    return { account: proven.account, source: proven.vouchedBy, event, fields: proven.fields, flags: {}, owned: proven.owned };
  }
}

/** The maps' view of a login: its source and claims, and the user's username here once known (SPEC §21). */
function accessOf(proven: ProvenIdentity, holder: User | null): LoginAccess {
  return { source: proven.source, claims: proven.claims, username: holder?.username };
}
