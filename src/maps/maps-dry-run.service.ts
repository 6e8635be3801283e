import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import { ErrorTree, FieldErrors } from '../common/errors';
import { validateBody } from '../common/validation';
import { RolesRepository } from '../organizations/roles.repository';
import { SettingsService } from '../settings/settings.service';
import { UsersService } from '../users/users.service';
import { claimsRecord, ClaimsRecord } from './claims-record';
import { LoginClaimsRepository, StoredLogin } from './login-claims.repository';
import type { Holdings, Outcome } from './map-contract';
import { MapSources, MapSourceReader, SettingsView } from './map-sources';
import { MapsService } from './maps.service';
import { diffOutcomes, describeOutcome } from './outcome-view';

/** The keys every source reads beyond its own AWX settings. */
const SHARED_KEYS = ['AUTHENTICATION_MAPS'];

const textList = z.array(z.string().max(4096)).max(10000);
const CLAIMS = z.strictObject({
  username: z.string().min(1).max(1024),
  email: z.string().max(1024).nullable().optional(),
  groups: textList.optional(),
  attributes: z.record(z.string().max(1024), textList).optional(),
});

const BODY = z.object({
  source: z.string().max(300),
  username: z.string().max(1024).optional(),
  claims: CLAIMS.optional(),
  settings: z.record(z.string(), z.unknown()).optional(),
  compare_last: z.number().int().min(1).max(1000).optional(),
});

/**
 * The maps' dry run (SPEC §21, `POST /api/v2/settings/maps/test/`): what a user would get now and under
 * candidate settings, which setting decided each verdict, and what the candidate would change for the users
 * who logged in through the source most recently. The same engine as a login, on stored claims; it writes
 * nothing.
 */
@Injectable()
export class MapsDryRun {
  constructor(
    private readonly sources: MapSources,
    private readonly maps: MapsService,
    private readonly settings: SettingsService,
    private readonly users: UsersService,
    private readonly roles: RolesRepository,
    private readonly stored: LoginClaimsRepository,
  ) {}

  async run(body: unknown): Promise<Record<string, unknown>> {
    const input = validateBody(BODY, body);
    const parsed = this.sources.parse(input.source);
    if (!parsed) throw new FieldErrors({ source: [`"${input.source.slice(0, 100)}" is not a source (${this.sources.describeInstances()}).`] });
    const { reader, source } = parsed;
    const tag = input.source;
    const candidate = input.settings ? this.candidate(reader, source.instance, input.settings) : undefined;
    if (input.compare_last !== undefined && !candidate) throw new FieldErrors({ compare_last: ['compare_last needs settings.'] });

    const user = input.username !== undefined ? await this.users.findByUsername(input.username) : null;
    if (input.username !== undefined && !user) throw new FieldErrors({ username: [`No user named "${input.username.slice(0, 150)}".`] });
    let claims: ClaimsRecord;
    let loginAt: Date | null = null;
    if (input.claims) {
      claims = claimsRecord({ username: input.claims.username, email: input.claims.email ?? null, groups: input.claims.groups ?? [], attributes: input.claims.attributes ?? {} });
    } else if (user) {
      const last = await this.stored.latestOf(user.id, tag);
      if (!last) throw new FieldErrors({ username: [`"${user.username}" has no stored login through ${tag}.`] });
      claims = last.claims;
      loginAt = last.loginAt;
    } else {
      throw new FieldErrors({ username: ['This field is required (or send claims).'] });
    }

    const access = { source, claims };
    const holdings = user ? await this.maps.holdingsOf(user) : undefined;
    const current = await this.maps.preview(user, access, undefined, holdings);
    const answer: Record<string, unknown> = {
      source: tag,
      username: user?.username ?? null,
      claims: { ...claims, login_at: loginAt },
      current: describeOutcome(current),
    };
    if (candidate) {
      answer.candidate = describeOutcome(await this.maps.preview(user, access, candidate, holdings));
      answer.impact = await this.impact(tag, source, input.compare_last ?? 100, candidate);
    }
    return answer;
  }

  /** Candidate values, each validated as a settings write; only the keys this source reads. */
  private candidate(reader: MapSourceReader, instance: string | null, given: Record<string, unknown>): SettingsView {
    const allowed = new Set([...SHARED_KEYS, ...this.sources.all().flatMap((r) => r.keys(r === reader ? instance : null))]);
    const values = new Map<string, unknown>();
    const errors: Record<string, ErrorTree> = {};
    for (const [key, value] of Object.entries(given)) {
      if (!allowed.has(key)) {
        errors[key.slice(0, 100)] = ['Not a setting the maps read.'];
        continue;
      }
      try {
        values.set(key, this.settings.parse(key, value));
      } catch (err) {
        if (!(err instanceof FieldErrors)) throw err;
        Object.assign(errors, err.errors);
      }
    }
    if (Object.keys(errors).length) throw new FieldErrors({ settings: errors });
    return (key) => (values.has(key) ? values.get(key) : this.settings.get(key));
  }

  /** The stored last logins of the `count` most recent users of the source, replayed under both settings. */
  private async impact(tag: string, source: { family: string; instance: string | null }, count: number, candidate: SettingsView) {
    const logins = await this.stored.recent(tag, count);
    const ids = logins.map((l) => l.userId);
    const [people, held, existing] = await Promise.all([this.users.findByIds(ids), this.roles.holdingsOfMany(ids), this.roles.existingObjects()]);
    const byId = new Map(people.map((u) => [u.id, u]));
    const users: Record<string, unknown>[] = [];
    const organizationsCreated = new Set<string>();
    const teamsCreated = new Map<string, { organization: string; team: string }>();
    for (const login of logins) {
      const person = byId.get(login.userId);
      if (!person) continue;
      const holdings: Holdings = {
        flags: { is_superuser: person.isSuperuser, is_system_auditor: person.isSystemAuditor },
        ...(held.get(person.id) ?? { organizations: [], teams: [] }),
      };
      const access = { source, claims: login.claims, username: person.username };
      const now = this.maps.decideWith(access, holdings, existing);
      const next = this.maps.decideWith(access, holdings, existing, candidate);
      creations(now, next, organizationsCreated, teamsCreated);
      const changes = diffOutcomes(now, next);
      if (changes.length) users.push({ id: person.id, username: person.username, login_at: login.loginAt, changes });
    }
    return {
      users_compared: logins.length,
      users_changed: users.length,
      users,
      organizations_created: [...organizationsCreated],
      teams_created: [...teamsCreated.values()],
    };
  }
}

/** What the candidate's logins would make that the current settings' would not. */
function creations(now: Outcome, next: Outcome, organizations: Set<string>, teams: Map<string, { organization: string; team: string }>): void {
  const made = new Set(now.creates.organizations);
  for (const name of next.creates.organizations) if (!made.has(name)) organizations.add(name);
  const madeTeams = new Set(now.creates.teams.map((t) => JSON.stringify([t.organization, t.team])));
  for (const team of next.creates.teams) {
    const key = JSON.stringify([team.organization, team.team]);
    if (!madeTeams.has(key)) teams.set(key, team);
  }
}

export type { StoredLogin };
