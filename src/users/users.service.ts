import { randomBytes } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { REQUIRED } from '../common/validation';
import { Clock } from '../common/clock';
import { Transactions } from '../database/transactions';
import { isUniqueViolation } from '../database/errors';
import { FieldErrors, NotFound } from '../common/errors';
import { PasswordHasher, UNUSABLE_PASSWORD_PREFIX } from './password-hasher.service';
import { PasswordRules } from './password-rules.service';
import { PasswordHistoryRepository } from './password-history.repository';
import { SERVICE_ACCOUNT } from './account-policy';
import { UserEvents } from './user-events';
import { UserActivity } from './user-activity';
import { User } from './user.entity';
import { foldUsername, MAX_USERNAME, MAX_SUFFIX_TRIES, normalizeUsername, USERNAME, withNormalizedName, withSuffix } from './usernames';
import { managedChanges, managedMessage, UserInput } from './user-body';
import { UsersRepository, UserValues } from './users.repository';
import { LoginMethods } from './login-methods';
import { RequestTrace } from '../common/request-context';
import type { VisibleUsers } from './user-visibility';

export type { UserInput } from './user-body';

@Injectable()
export class UsersService {
  private readonly logger = new Logger('users');

  constructor(
    private readonly users: UsersRepository,
    private readonly hasher: PasswordHasher,
    private readonly events: UserEvents,
    private readonly clock: Clock,
    private readonly transactions: Transactions,
    private readonly backends: LoginMethods,
    private readonly rules: PasswordRules,
    private readonly history: PasswordHistoryRepository,
    private readonly activity: UserActivity,
  ) {}

  /** Several users at once (the maps' dry run); missing ids are left out. */
  findByIds(ids: number[]): Promise<User[]> {
    return this.users.findByIds(ids);
  }

  findById(id: number): Promise<User | null> {
    return this.users.findById(id);
  }

  /** Usernames are matched exactly as typed (once normalised, SPEC §14), on MySQL's case-insensitive collation too. */
  async findByUsername(typed: string): Promise<User | null> {
    const username = normalizeUsername(typed);
    if (!username || username.length > 150) return null;
    const user = await this.users.findByUsername(username);
    return user && user.username === username ? user : null;
  }

  /** The user whose name equals `username` after NFKC and Unicode case folding (names are unique that way), or null. */
  async findByUsernameIgnoringCase(username: string): Promise<User | null> {
    if (!username || username.length > 150) return null;
    return this.users.findByFoldedName(foldUsername(username));
  }

  /** The user of a method's `account` that holds directory entry `dn` (SPEC §14: one account per entry), or null. */
  findByDirectoryEntry(account: string, dn: string): Promise<User | null> { return this.users.findByDirectoryEntry(account, dn); }

  async getOr404(id: number): Promise<User> {
    const user = await this.findById(id);
    if (!user) throw new NotFound();
    return user;
  }

  count(): Promise<number> {
    return this.users.count();
  }

  /** The users a list shows (only `onlyId` for callers who see only themselves), before its filters and page. */
  listQuery(onlyId?: number) {
    return this.users.listQuery(onlyId);
  }

  /** The users a caller sees (UserVisibility), before a list's filters and page. */
  visibleQuery(visible: VisibleUsers) {
    const qb = this.users.listQuery();
    return visible.all ? qb : qb.where(`(${visible.where})`, visible.params);
  }

  /** Whether user `id` is among those a caller sees. */
  async isVisible(visible: VisibleUsers, id: number): Promise<boolean> {
    return (await this.visibleQuery(visible).andWhere('u.id = :visibleId', { visibleId: id }).getCount()) > 0;
  }

  /**
   * Whether `password` is the user's (null = unknown username, which costs the same time as a known one); the user
   * when it is. Imported Django hashes are upgraded here. Whether the account may act is the caller's question.
   */
  async verifyPasswordOf(user: User | null, password: string): Promise<User | null> {
    if (!user) {
      await this.hasher.burn(password);
      return null;
    }
    const result = await this.hasher.verify(password, user.password);
    if (!result.ok) return null;
    if (result.upgradedHash) {
      await this.users.replaceHash(user.id, user.password, result.upgradedHash);
      await this.history.replaceHash(user.id, user.password, result.upgradedHash);
      user.password = result.upgradedHash;
    }
    return user;
  }

  /** `now`: the login's instant, its `login_succeeded` event's, so `last_login` and `previous_login` read as the events do. */
  async recordLogin(user: User, now = this.clock.now()): Promise<void> {
    user.lastLogin = user.lastLoginEventAt = now;
    // In a transaction that is retried on a deadlock: logins racing on several Galera members conflict here.
    await this.transactions.run((manager) => this.users.recordLogin(manager, user.id, now));
  }

  private async checkUsername(username: string, exceptId?: number): Promise<string | undefined> {
    if (username.length > MAX_USERNAME) return 'Ensure this field has no more than 150 characters.';
    if (!USERNAME.test(username)) {
      return 'Enter a valid username. This value may contain only letters, numbers, and @/./+/-/_ characters.';
    }
    // Compared folded (NFKC, Unicode case) on both databases, so SQLite and MySQL accept the same names.
    const clash = await this.users.findByFoldedName(foldUsername(username));
    if (clash && clash.id !== exceptId) return 'A user with that username already exists.';
    return undefined;
  }

  /**
   * `skipPasswordPolicy`: the management commands' `--skip-policy`, an administrator's explicit choice.
   * The name is stored NFKC-normalised (SPEC §14), so `ａｄｍｉｎ` is `admin`: a clash, never a look-alike account.
   */
  async create(given: Partial<UserInput>, trace: RequestTrace, extra: { externalAccount?: string | null; skipPasswordPolicy?: boolean } = {}): Promise<User> {
    const input = withNormalizedName(given);
    const errors: Record<string, string[]> = {};
    const usernameProblem = input.username === undefined ? REQUIRED : await this.checkUsername(input.username);
    if (usernameProblem) errors.username = [usernameProblem];
    const external = !!extra.externalAccount;
    if (!external && (input.password === undefined || input.password === '' || input.password === '$encrypted$')) {
      errors.password = ['Password required for new User.'];
    }
    if (Object.keys(errors).length) throw new FieldErrors(errors);
    let passwordHash: string;
    if (external) passwordHash = UNUSABLE_PASSWORD_PREFIX + randomBytes(16).toString('hex');
    else {
      if (!extra.skipPasswordPolicy) await this.rules.refuse(input.password!, input.username!);
      passwordHash = await this.hasher.hash(input.password!);
    }
    const now = this.clock.now();
    const id = await this.insertWithHistory({
      username: input.username!,
      usernameFolded: foldUsername(input.username!),
      password: passwordHash,
      firstName: input.first_name ?? '',
      lastName: input.last_name ?? '',
      email: input.email ?? '',
      isSuperuser: input.is_superuser ?? false,
      isSystemAuditor: input.is_system_auditor ?? false,
      isActive: input.is_active ?? true,
      externalAccount: extra.externalAccount ?? null,
      ldapDn: input.ldap_dn ?? null,
      created: now,
      modified: now,
      lastLogin: null, accountExpires: input.account_expires ?? null, lastLoginEventAt: null, previousLoginAt: null, reactivatedAt: null,
    });
    const user = await this.getOr404(id);
    this.logger.log({ event: 'user_created', user_id: user.id, username: user.username, ...trace });
    this.activity.created(user, trace);
    return user;
  }

  /**
   * A new external user under the first free name of `base`, `base-2`, `base-3`... (checked without
   * case, and again by the unique index when two logins race); null when a hundred are taken.
   */
  async createWithFreeUsername(base: string, input: Partial<UserInput>, trace: RequestTrace, extra: { externalAccount: string }): Promise<User | null> {
    for (let n = 1; n <= MAX_SUFFIX_TRIES; n++) {
      try {
        return await this.create({ ...input, username: withSuffix(base, n) }, trace, extra);
      } catch (err) {
        if (!(err instanceof FieldErrors && err.errors.username) && !isUniqueViolation(err)) throw err;
      }
    }
    return null;
  }

  /**
   * Applies a validated change. A new password ends the user's other sessions (the caller's own,
   * `keepSessionId`, survives); deactivation ends every session and token.
   */
  async update(user: User, given: Partial<UserInput>, trace: RequestTrace, keepSessionId?: number, skipPasswordPolicy = false): Promise<User> {
    const input = withNormalizedName(given);
    const errors: Record<string, string[]> = {};
    if (input.username !== undefined && input.username !== user.username) {
      const problem = await this.checkUsername(input.username, user.id);
      if (problem) errors.username = [problem];
    }
    // "$encrypted$" or an empty password keeps the old one (AWX); external users have no local password.
    const newPassword = input.password !== undefined && input.password !== '' && input.password !== '$encrypted$';
    // A password would be a way in for an account that only its application's client credentials may use.
    if (newPassword && user.externalAccount === SERVICE_ACCOUNT) errors.password = ['A service account has no password.'];
    // A directory's user proves the directory's password only: a local one would be a second, unseen way in.
    const backend = this.backends.forAccount(user.externalAccount);
    if (newPassword && backend) errors.password = [managedMessage('password', backend.label)];
    if (Object.keys(errors).length) throw new FieldErrors(errors);
    const changes: Partial<User> = {};
    let passwordChanged = false;
    if (newPassword && !user.externalAccount) {
      if (!skipPasswordPolicy) await this.rules.refuse(input.password!, input.username ?? user.username, user);
      changes.password = await this.hasher.hash(input.password!);
      passwordChanged = true;
    }
    if (input.username !== undefined) {
      changes.username = input.username;
      changes.usernameFolded = foldUsername(input.username);
    }
    if (input.first_name !== undefined) changes.firstName = input.first_name;
    if (input.last_name !== undefined) changes.lastName = input.last_name;
    if (input.email !== undefined) changes.email = input.email;
    if (input.is_superuser !== undefined) changes.isSuperuser = input.is_superuser;
    if (input.is_system_auditor !== undefined) changes.isSystemAuditor = input.is_system_auditor;
    if (input.is_active !== undefined) changes.isActive = input.is_active;
    if (input.is_active && !user.isActive) changes.reactivatedAt = this.clock.now(); // restarts ACCOUNT_INACTIVE_DAYS (SPEC §22)
    if (input.account_expires !== undefined) changes.accountExpires = input.account_expires;
    if (input.ldap_dn !== undefined) changes.ldapDn = input.ldap_dn;
    changes.modified = this.clock.now();
    // A new password and its history row (SPEC §22) are written in one transaction.
    await this.transactions.run(async (manager) => {
      await this.users.update(user.id, changes, manager);
      if (changes.password) await this.history.record(manager, user.id, changes.password, changes.modified!);
    });
    if (passwordChanged) {
      await this.events.emit({ type: 'password_changed', userId: user.id, keepSessionId, trace });
      this.logger.log({ event: 'password_changed', user_id: user.id, username: user.username, ...trace });
    }
    if (input.is_active === false && user.isActive) await this.events.emit({ type: 'deactivated', userId: user.id, trace });
    const after = await this.getOr404(user.id);
    this.activity.updated(user, after, trace);
    return after;
  }

  /**
   * What the API may not change on a backend's user (SPEC §14): the fields the directory owns, each a 400
   * `Unable to change <field> on user managed by LDAP.` when the request would change it (AWX's wording).
   */
  refuseManagedChanges(user: User, given: Partial<UserInput>): void {
    const backend = this.backends.forAccount(user.externalAccount);
    const errors = backend ? managedChanges(user, withNormalizedName(given), backend) : {};
    if (Object.keys(errors).length) throw new FieldErrors(errors);
  }

  async setPassword(user: User, password: string, trace: RequestTrace, skipPasswordPolicy = false): Promise<void> {
    await this.update(user, { password }, trace, undefined, skipPasswordPolicy);
  }

  async remove(user: User, trace: RequestTrace): Promise<void> {
    await this.events.emit({ type: 'deleted', userId: user.id, trace });
    await this.users.delete(user.id);
    this.logger.log({ event: 'user_deleted', user_id: user.id, username: user.username, ...trace });
    this.activity.deleted(user, trace);
  }

  /**
   * First start with no users: create the superuser. No fixed default password exists; without
   * ADMIN_PASSWORD a strong one is generated and returned for printing once.
   */
  async ensureBootstrapAdmin(configured: string, password?: string): Promise<{ created: boolean; generatedPassword?: string }> {
    if ((await this.count()) > 0) return { created: false };
    const username = normalizeUsername(configured);
    const generated = password ? undefined : randomBytes(18).toString('base64url');
    const hash = await this.hasher.hash(password ?? generated!);
    const now = this.clock.now();
    try {
      await this.insertWithHistory({
        username, usernameFolded: foldUsername(username), password: hash, firstName: '', lastName: '', email: '', isSuperuser: true, isSystemAuditor: false,
        isActive: true, externalAccount: null, ldapDn: null, created: now, modified: now, lastLogin: null, accountExpires: null, lastLoginEventAt: null, previousLoginAt: null, reactivatedAt: null,
      });
    } catch (err) {
      // Another node starting at the same moment created it first.
      if (isUniqueViolation(err)) return { created: false };
      throw err;
    }
    return { created: true, generatedPassword: generated };
  }

  /** A new user; a local one with its password's first history row (SPEC §22), in one transaction. */
  private insertWithHistory(values: UserValues): Promise<number> {
    return this.transactions.run(async (manager) => {
      const id = await this.users.insert(values, manager);
      if (!values.externalAccount) await this.history.record(manager, id, values.password, values.created);
      return id;
    });
  }
}
