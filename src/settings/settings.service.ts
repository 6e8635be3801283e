import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In } from 'typeorm';
import { APP_CONFIG, AppConfig, ConfigError } from '../config/app-config';
import { Clock } from '../common/clock';
import { ErrorTree, FieldErrors, NotFound } from '../common/errors';
import { SecretBox } from '../common/secret-box';
import { validateValue } from '../common/validation';
import { AUTHENTICATION_SETTINGS, AuthenticationSettings } from './authentication-settings';
import { UI, UI_SETTINGS, consentNeedsNotice } from './ui-settings';
import { ENCRYPTED_PLACEHOLDER, SettingDefinition } from './setting-definition';
import { decryptSecrets, encryptSecrets, maskSecrets, unmaskSecrets } from './setting-secrets';
import { SettingsActivity } from './settings-activity';
import { Setting } from './setting.entity';
import { NO_REQUEST, RequestTrace } from '../common/request-context';

/** How often a node re-reads the settings table: changes made elsewhere show within a second. */
export const SETTINGS_REFRESH_MS = 400;

/** The slug of the pseudo-category holding every setting. */
export const ALL_SETTINGS = 'all';

/**
 * A rule across the keys of a category: `next` is what the write would leave, `typed` the keys the write gives
 * a value of its own (a secret sent as `"$encrypted$"`, or left out, is not typed: it keeps the stored one); async to ask the database.
 */
export type CategoryCheck = (next: Record<string, unknown>, typed: ReadonlySet<string>) => Record<string, string[]> | undefined | Promise<Record<string, string[]> | undefined>;

/** The hidden keys (SettingDefinition.hidden) a write that passed its checks stores with it, in the same transaction. */
export type CategoryDerivation = (next: Record<string, unknown>, typed: ReadonlySet<string>) => Record<string, unknown> | undefined;

/**
 * Runtime settings (SPEC §9): built-in default < env var of the same name (JSON) < stored value.
 * Reads are synchronous from an in-process copy refreshed every SETTINGS_REFRESH_MS and right
 * after a local write.
 */
@Injectable()
export class SettingsService implements OnModuleInit {
  private readonly logger = new Logger('settings');
  private readonly definitions = new Map<string, SettingDefinition>();
  private readonly envDefaults = new Map<string, unknown>();
  private readonly checks = new Map<string, CategoryCheck[]>();
  private readonly labels = new Map<string, string>([[ALL_SETTINGS, 'All'], ['authentication', 'Authentication'], [UI, 'UI']]);
  private readonly derivations = new Map<string, CategoryDerivation[]>();
  private readonly remoteMethods: (() => boolean)[] = [];
  private stored = new Map<string, unknown>();
  private readonly box: SecretBox;
  /** Where the env defaults come from: the environment as the config loaded it. */
  private readonly env: Readonly<Record<string, string | undefined>>;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly clock: Clock,
    private readonly activity: SettingsActivity,
  ) {
    this.box = new SecretBox(config.secretKey);
    this.env = config.settingsEnv;
    for (const definitions of [AUTHENTICATION_SETTINGS, UI_SETTINGS]) this.register(definitions);
    this.addCheck(UI, consentNeedsNotice);
    this.addCheck('authentication', (next) => {
      if (next.DISABLE_LOCAL_AUTH === true && !this.remoteAuthConfigured()) {
        return { DISABLE_LOCAL_AUTH: ['There are no remote authentication systems configured.'] };
      }
      return undefined;
    });
  }

  /** Feature modules add their categories (SSO) at construction; env defaults are validated here. */
  register(definitions: SettingDefinition[]): void {
    for (const def of definitions) {
      this.definitions.set(def.key, def);
      const raw = this.env[def.key];
      if (raw === undefined || def.readOnly || def.hidden) continue;
      let parsed: unknown;
      try {
        parsed = JSON.parse(raw);
      } catch {
        parsed = raw; // a bare string is taken as a string
      }
      try {
        this.envDefaults.set(def.key, validateValue(def.schema, parsed, def.key));
      } catch (e) {
        throw new ConfigError(`Environment variable ${def.key} is invalid: ${(e as Error).message}`);
      }
    }
  }

  /** A feature's "is this remote login method configured?" (an LDAP directory), counted by remoteAuthConfigured. */
  addRemoteMethod(configured: () => boolean): void {
    this.remoteMethods.push(configured);
  }

  /** What `/api/v2/settings/` calls a category (its module's registration); the slug when unnamed. */
  nameCategory(category: string, label: string): void {
    this.labels.set(category, label);
  }

  categoryLabel(category: string): string {
    return this.labels.get(category) ?? category;
  }

  addCheck(category: string, check: CategoryCheck): void {
    this.checks.set(category, [...(this.checks.get(category) ?? []), check]);
  }

  addDerivation(category: string, derivation: CategoryDerivation): void {
    this.derivations.set(category, [...(this.derivations.get(category) ?? []), derivation]);
  }

  async onModuleInit(): Promise<void> {
    await this.reload(NO_REQUEST);
  }

  /** Reads every stored setting again: after a change (`trace`, the request that made it) and every few seconds. */
  async reload(trace: RequestTrace): Promise<void> {
    if (!this.dataSource.isInitialized) return;
    const rows = await this.dataSource.getRepository(Setting).find();
    const next = new Map<string, unknown>();
    for (const row of rows) {
      const def = this.definitions.get(row.key);
      if (!def) continue;
      try {
        const value = JSON.parse(row.value);
        next.set(row.key, def.secret ? decryptSecrets(value, this.box) : value);
      } catch {
        this.logger.warn({ event: 'setting_unreadable', key: row.key, ...trace });
      }
    }
    this.stored = next;
  }

  get<K extends keyof AuthenticationSettings>(key: K): AuthenticationSettings[K];
  get<T = unknown>(key: string): T;
  get(key: string): unknown {
    if (this.stored.has(key)) return this.stored.get(key);
    if (this.envDefaults.has(key)) return this.envDefaults.get(key);
    const def = this.definitions.get(key);
    if (!def) throw new NotFound(`Unknown setting ${key}.`);
    return def.default;
  }

  categories(): string[] {
    return [...new Set([...this.definitions.values()].map((d) => d.category))];
  }

  /**
   * A category's definitions; `all` is every setting of every category (SPEC §19, `/api/v2/settings/all/`).
   * Hidden ones only with `hidden` (a reset clears them with their category).
   */
  private categoryDefinitions(category: string, hidden = false): SettingDefinition[] {
    const defs = [...this.definitions.values()].filter((d) => (category === ALL_SETTINGS || d.category === category) && (hidden || !d.hidden));
    if (!defs.length) throw new NotFound();
    return defs;
  }

  /** The category as the API shows it: secrets masked. */
  read(category: string): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const def of this.categoryDefinitions(category)) {
      const value = this.get(def.key);
      out[def.key] = def.secret ? maskSecrets(value) : value;
    }
    return out;
  }

  /** Validates every given key (400 naming each bad or unknown field), then stores them in one transaction. */
  async update(category: string, body: unknown, actor: string, trace: RequestTrace): Promise<Record<string, unknown>> {
    const defs = new Map(this.categoryDefinitions(category).map((d) => [d.key, d]));
    if (!body || typeof body !== 'object' || Array.isArray(body)) {
      throw new FieldErrors({ non_field_errors: ['Invalid data. Expected a dictionary.'] });
    }
    const errors: Record<string, ErrorTree> = {};
    const changes = new Map<string, unknown>();
    const typed = new Set<string>();
    for (const [key, raw] of Object.entries(body)) {
      const def = defs.get(key);
      // A typo must not answer 200 and change nothing (issue 34): unknown keys are named in the 400.
      // Read-only ones are ignored as DRF does, so a GET's body can be PUT back as it is.
      if (!def) {
        errors[key.slice(0, 100)] = [`Unknown setting for the ${category} category.`];
        continue;
      }
      if (def.readOnly) continue;
      if (!def.secret || !JSON.stringify(raw ?? null).includes(ENCRYPTED_PLACEHOLDER)) typed.add(key);
      try {
        changes.set(key, validateValue(def.schema, def.secret ? unmaskSecrets(key, raw, this.get(key)) : raw, key));
      } catch (e) {
        if (!(e instanceof FieldErrors)) throw e;
        Object.assign(errors, e.errors);
      }
    }
    const next: Record<string, unknown> = {};
    for (const key of defs.keys()) next[key] = changes.has(key) ? changes.get(key) : this.get(key);
    const checks = category === ALL_SETTINGS ? [...this.checks.values()].flat() : (this.checks.get(category) ?? []);
    for (const check of checks) Object.assign(errors, (await check(next, typed)) ?? {});
    if (Object.keys(errors).length) throw new FieldErrors(errors);
    const derivations = category === ALL_SETTINGS ? [...this.derivations.values()].flat() : (this.derivations.get(category) ?? []);
    for (const derive of derivations) {
      for (const [key, value] of Object.entries(derive(next, typed) ?? {})) {
        const def = this.definitions.get(key)!;
        defs.set(key, def);
        changes.set(key, validateValue(def.schema, value, key));
      }
    }
    const now = this.clock.now();
    const before = this.stored;
    await this.dataSource.transaction(async (manager) => {
      const repo = manager.getRepository(Setting);
      for (const [key, value] of changes) {
        const def = defs.get(key)!;
        const stored = JSON.stringify(def.secret ? encryptSecrets(value, this.box) : value);
        const updated = await repo.update({ key }, { value: stored, modified: now });
        if (!updated.affected) await repo.insert({ key, value: stored, created: now, modified: now });
      }
    });
    await this.reload(trace);
    this.activity.changed(defs.values(), before, this.stored, trace);
    this.logger.log({ event: 'settings_changed', category, keys: [...changes.keys()], user: actor, ...trace });
    return this.read(category);
  }

  /**
   * A candidate value of `key`, validated as a write of it is, without storing it (the maps' dry run,
   * SPEC §21): the parsed value, or FieldErrors `{"<KEY>": [...]}`.
   */
  parse(key: string, value: unknown): unknown {
    const def = this.definitions.get(key);
    if (!def || def.readOnly || def.hidden) throw new FieldErrors({ [key.slice(0, 100)]: ['Unknown setting.'] });
    return validateValue(def.schema, value, key);
  }

  /** Stores one value with its definition's validation but no category checks (management commands). */
  async store(key: string, value: unknown, actor: string, trace: RequestTrace): Promise<void> {
    const def = this.definitions.get(key);
    if (!def) throw new NotFound(`Unknown setting ${key}.`);
    const clean = validateValue(def.schema, value, key);
    const now = this.clock.now();
    const stored = JSON.stringify(def.secret ? encryptSecrets(clean, this.box) : clean);
    const repo = this.dataSource.getRepository(Setting);
    const before = this.stored;
    const updated = await repo.update({ key }, { value: stored, modified: now });
    if (!updated.affected) await repo.insert({ key, value: stored, created: now, modified: now });
    await this.reload(trace);
    this.activity.changed([def], before, this.stored, trace);
    this.logger.log({ event: 'settings_changed', category: def.category, keys: [key], user: actor, ...trace });
  }

  /** Resets every writable key of the category to its default (AWX DELETE). */
  async reset(category: string, actor: string, trace: RequestTrace): Promise<void> {
    const defs = this.categoryDefinitions(category, true).filter((d) => !d.readOnly);
    const keys = defs.map((d) => d.key);
    const before = this.stored;
    await this.dataSource.getRepository(Setting).delete({ key: In(keys) });
    await this.reload(trace);
    this.activity.changed(defs, before, this.stored, trace);
    this.logger.log({ event: 'settings_changed', category, keys, reset: true, user: actor, ...trace });
  }

  /** Is any remote method (single sign-on, a directory: the login methods registry says) configured? (AWX refuses DISABLE_LOCAL_AUTH otherwise.) */
  remoteAuthConfigured(): boolean {
    return this.remoteMethods.some((configured) => configured());
  }
}
