import { Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { Clock } from '../common/clock';
import type { RequestTrace } from '../common/request-context';
import { Transactions } from '../database/transactions';
import { RolesRepository } from '../organizations/roles.repository';
import { SettingsService } from '../settings/settings.service';
import { UserEvents } from '../users/user-events';
import { UsersRepository } from '../users/users.repository';
import type { User } from '../users/user.entity';
import { AccessRefused } from './access-refused';
import { claimsRecord } from './claims-record';
import { LoginClaimsRepository } from './login-claims.repository';
import type { Claims, ExistingObjects, Flag, Holdings, MapSource, OrganizationTarget, Outcome, TargetOutcome, TeamRole } from './map-contract';
import { sourceTag } from './map-contract';
import { MapSources, SettingsView } from './map-sources';
import { decide } from './maps-engine';

/** What a login method hands the maps: the source it came through and what that source said. */
export interface LoginAccess {
  source: MapSource;
  claims: Claims;
  /** The user's username here, once known (the social maps test it; SPEC §21); else the source's. */
  username?: string;
}

/** One change a login made, as `maps_applied` logs it (never a claim's value). */
export interface AppliedChange {
  target: string;
  role?: string;
  flag?: Flag;
  change: 'grant' | 'revoke';
  decided_by: string | null;
}

const NO_HOLDINGS: Holdings = { flags: { is_superuser: false, is_system_auditor: false }, organizations: [], teams: [] };

/**
 * The second half of a login's provisioning step (SPEC §21, issue 42): what an identity source grants. The
 * method proves who the user is and says what its source sent (`LoginAccess`); this decides, with the
 * method's AWX settings (its registered MapSourceReader) and AUTHENTICATION_MAPS, whether the login is
 * allowed, and applies the organizations, teams, roles and flags in one transaction before any session or
 * token exists. The external-login pipeline (`external-logins/`) asks it, once per login, for every method.
 */
@Injectable()
export class MapsService {
  private readonly logger = new Logger('auth');

  constructor(
    private readonly sources: MapSources,
    private readonly settings: SettingsService,
    private readonly roles: RolesRepository,
    private readonly claimsStore: LoginClaimsRepository,
    private readonly transactions: Transactions,
    private readonly events: UserEvents,
    private readonly users: UsersRepository,
    private readonly clock: Clock,
  ) {}

  /**
   * The allow decision alone, taken as soon as the source answers (it reads only the claims): the path that
   * refused, or null. A refused existing user loses access at once (`revokeAccess`); a refused first login makes none.
   */
  refusal(user: User | null, access: LoginAccess, trace: RequestTrace): string | null {
    const outcome = this.decideWith(access, NO_HOLDINGS, { organizations: new Set(), teams: new Set() });
    if (outcome.allowed) return null;
    const refusedBy = outcome.refusedBy ?? 'AUTHENTICATION_MAPS';
    this.logger.log({ event: 'login_refused_by_maps', source: sourceTag(access.source), user_id: user?.id ?? null, refused_by: refusedBy, ...trace });
    return refusedBy;
  }

  /** What a login with `access` would do to `user` now, or under candidate settings; nothing is written. */
  async preview(user: User | null, access: LoginAccess, settings?: SettingsView, holdings?: Holdings): Promise<Outcome> {
    const named = user ? { ...access, username: user.username } : access;
    return this.decideWith(named, holdings ?? (user ? await this.holdingsOf(user) : NO_HOLDINGS), await this.roles.existingObjects(), settings);
  }

  /** Holdings of a user as the engine reads them: the flags and every role, by names. */
  async holdingsOf(user: Pick<User, 'id' | 'isSuperuser' | 'isSystemAuditor'>, manager?: EntityManager): Promise<Holdings> {
    const held = await this.roles.holdingsOf(user.id, manager);
    return { flags: { is_superuser: user.isSuperuser, is_system_auditor: user.isSystemAuditor }, ...held };
  }

  private readonly current: SettingsView = (key) => this.settings.get(key);

  /** The engine on one login: the source's AWX settings (its registered reader), then AUTHENTICATION_MAPS. */
  decideWith(access: LoginAccess, holdings: Holdings, existing: ExistingObjects, settings: SettingsView = this.current): Outcome {
    const reader = this.sources.reader(access.source.family);
    if (!reader) throw new Error(`no map reader registered for ${access.source.family}`);
    return decide({
      source: access.source,
      claims: access.claims,
      awx: reader.awxVerdicts(access.source.instance, access.claims, settings, access.username ?? access.claims.username),
      rules: settings('AUTHENTICATION_MAPS') as never,
      holdings,
      existing,
      sameGroup: reader.sameGroup?.bind(reader),
      sameAttribute: reader.sameAttribute?.bind(reader),
    });
  }

  /**
   * The login's grants, revokes and flags in one transaction, on the user's row locked first: two racing
   * logins of one user end in the state one of them computed. The stored claims are replaced in it too.
   */
  async apply(user: User, given: LoginAccess, trace: RequestTrace): Promise<User> {
    const access = { ...given, username: user.username };
    const tag = sourceTag(access.source);
    const { outcome, changes } = await this.transactions.run(async (manager) => {
      const locked = await this.users.lockForLogin(manager, user.id, this.transactions.forUpdate);
      const holdings = await this.holdingsOf(locked, manager);
      const outcome = this.decideWith(access, holdings, await this.roles.existingObjects(manager));
      if (!outcome.allowed) return { outcome, changes: [] as AppliedChange[] };
      const changes = await this.write(user.id, holdings, outcome, manager);
      await this.storeClaims(manager, user.id, access, true);
      return { outcome, changes };
    });
    if (!outcome.allowed) {
      // The settings changed between the allow decision and the transaction: refused after all.
      await this.revokeAccess(user, access, outcome.refusedBy ?? 'AUTHENTICATION_MAPS', trace);
      throw new AccessRefused(outcome.refusedBy ?? 'AUTHENTICATION_MAPS');
    }
    if (changes.length) this.logger.log({ event: 'maps_applied', source: tag, user_id: user.id, changes, ...trace });
    const flagChanged = changes.some((c) => c.flag);
    return flagChanged ? { ...user, isSuperuser: outcome.flags.is_superuser.after, isSystemAuditor: outcome.flags.is_system_auditor.after } : user;
  }

  private async write(userId: number, holdings: Holdings, outcome: Outcome, manager: EntityManager): Promise<AppliedChange[]> {
    const changes: AppliedChange[] = [];
    for (const name of outcome.creates.organizations) await this.roles.ensureOrganization(name, manager);
    for (const { organization, team } of outcome.creates.teams) await this.roles.ensureTeam(organization, team, manager);
    // One list of role changes: a team target names its team, an organization target does not.
    const targets = [...outcome.organizations, ...outcome.teams] as (TargetOutcome & OrganizationTarget & { team?: string })[];
    for (const target of targets) {
      if (target.before === target.after) continue;
      const role = target.team === undefined ? { organization: target.organization, role: target.role } : { organization: target.organization, team: target.team, role: target.role as TeamRole };
      if (target.after) await this.roles.grant(userId, role, manager);
      else await this.roles.revoke(userId, role, manager);
      const named = target.team === undefined ? `organization ${JSON.stringify(target.organization)}` : `team ${JSON.stringify(target.team)} of ${JSON.stringify(target.organization)}`;
      changes.push({ target: named, role: target.role, change: target.after ? 'grant' : 'revoke', decided_by: target.decidedBy });
    }
    const flags: Partial<Pick<User, 'isSuperuser' | 'isSystemAuditor'>> = {};
    for (const [flag, column] of [['is_superuser', 'isSuperuser'], ['is_system_auditor', 'isSystemAuditor']] as const) {
      const verdict = outcome.flags[flag];
      if (verdict.after === holdings.flags[flag]) continue;
      flags[column] = verdict.after;
      changes.push({ target: 'user', flag, change: verdict.after ? 'grant' : 'revoke', decided_by: verdict.decidedBy });
    }
    if (Object.keys(flags).length) await this.users.setFlags(manager, userId, flags, this.clock.now());
    return changes;
  }

  /** The claims of the user's latest login through the source, for the dry run; AUTH_CLAIMS_RETENTION_DAYS 0 keeps none. */
  private async storeClaims(manager: EntityManager, userId: number, access: LoginAccess, allowed: boolean): Promise<void> {
    if (this.settings.get<number>('AUTH_CLAIMS_RETENTION_DAYS') === 0) return;
    await this.claimsStore.store(manager, { userId, source: sourceTag(access.source), loginAt: this.clock.now(), allowed, claims: claimsRecord(access.claims) });
  }

  /**
   * The source has just said this person may no longer come in (SPEC §21): every live session ends with
   * `access_revoked` and every token is revoked, as at a deactivation, but the user stays active so that a
   * later admitted login works. The claims of the refused login are stored for the dry run.
   */
  async revokeAccess(user: User, access: LoginAccess, refusedBy: string, trace: RequestTrace): Promise<void> {
    await this.transactions.run((manager) => this.storeClaims(manager, user.id, access, false));
    this.logger.log({ event: 'access_revoked', source: sourceTag(access.source), user_id: user.id, refused_by: refusedBy, ...trace });
    await this.events.emit({ type: 'access_revoked', userId: user.id, trace });
  }
}
