import type { MapRule } from './authentication-maps';
import { mergeDecisions } from './dialects/awx-part';
import {
  AwxVerdicts,
  Claims,
  Decision,
  ExistingObjects,
  Flag,
  Holdings,
  MapSource,
  OrganizationRole,
  Outcome,
  sourceTag,
  TargetOutcome,
  TeamRole,
} from './map-contract';
import { EXACT, triggerHolds } from './triggers';

/**
 * The rule engine of SPEC §21: a method's AWX verdicts, then AUTHENTICATION_MAPS in the list's order, over
 * the user's holdings. Pure: the login applies the Outcome, the dry run shows it.
 */
export interface DecideInput {
  source: MapSource;
  claims: Claims;
  awx: AwxVerdicts;
  /** AUTHENTICATION_MAPS as stored (parsed by its schema). */
  rules: readonly MapRule[];
  holdings: Holdings;
  existing: ExistingObjects;
  /** How a rule's group compares with a group the source sent (LDAP: as §14 compares DNs); default exactly. */
  sameGroup?: (a: string, b: string) => boolean;
  /** How a rule's attribute name compares with one the source sent (LDAP: ignoring case); default exactly. */
  sameAttribute?: (a: string, b: string) => boolean;
}

export const FLAGS: readonly Flag[] = ['is_superuser', 'is_system_auditor'];
const ORGANIZATION_ROLES: readonly OrganizationRole[] = ['admin', 'auditor', 'member'];
const TEAM_ROLES: readonly TeamRole[] = ['admin', 'member'];

/** `AUTHENTICATION_MAPS[3]`, as the dry run names a rule. */
export function rulePath(index: number): string {
  return `AUTHENTICATION_MAPS[${index}]`;
}

/** Whether a rule's `sources` take this login: absent, every one; `ldap` every `ldap:*`; `ldap:1` that one. */
export function ruleApplies(rule: MapRule, source: MapSource): boolean {
  return !rule.sources || rule.sources.some((entry) => entry === source.family || entry === sourceTag(source));
}

interface Target<T> {
  target: T;
  decision: Decision;
  /** Decided by an AUTHENTICATION_MAPS rule (which makes its object when it grants). */
  byRule: boolean;
}

const organizationKey = (organization: string, role: string) => JSON.stringify([organization, role]);
const teamKey = (organization: string, team: string, role: string) => JSON.stringify([organization, team, role]);
const teamName = (organization: string, team: string) => JSON.stringify([organization, team]);
const quoted = (text: string) => JSON.stringify(text);
const NONE: Decision = { verdict: 'none', decidedBy: null };

function outcomeOf(decision: Decision, before: boolean): TargetOutcome {
  const after = decision.verdict === 'grant' ? true : decision.verdict === 'revoke' ? false : before;
  return { verdict: decision.verdict, before, after, decidedBy: decision.verdict === 'none' ? null : decision.decidedBy };
}

function ruleTargetWords(rule: MapRule): string {
  if (rule.map_type === 'organization') return `${rule.role} in ${quoted(rule.organization!)}`;
  if (rule.map_type === 'team') return `${rule.role} of team ${quoted(rule.team!)} in ${quoted(rule.organization!)}`;
  return rule.map_type;
}

/** SPEC §21's order: the method's gates and every applicable `allow` rule admit, or the login is refused. */
export function decide(input: DecideInput): Outcome {
  const { awx, holdings, source } = input;
  const names = { sameGroup: input.sameGroup ?? EXACT, sameAttribute: input.sameAttribute ?? EXACT };
  const steps = [...awx.steps];
  const rules = input.rules
    .map((rule, index) => ({ rule, path: rulePath(index), label: `${rulePath(index)} ${quoted(rule.name)}` }))
    .filter(({ rule, label }) => {
      if (!rule.enabled) steps.push(`${label}: disabled: skipped.`);
      else if (!ruleApplies(rule, source)) steps.push(`${label}: not for ${sourceTag(source)}: skipped.`);
      else return true;
      return false;
    });
  const holds = new Map(rules.map(({ rule, path }) => [path, triggerHolds(rule.triggers, input.claims, names)]));

  let refusedBy = awx.refusedBy;
  if (refusedBy) steps.push(`Refused by ${refusedBy}: no rule is read.`);
  else {
    for (const { rule, path, label } of rules.filter(({ rule }) => rule.map_type === 'allow')) {
      steps.push(`${label}: its trigger ${holds.get(path) ? 'holds: admits' : 'does not hold: refuses'} the login.`);
      if (!holds.get(path)) refusedBy ??= path;
    }
  }
  if (refusedBy) return refused(refusedBy, holdings, steps);

  // What each rule says, in the list's order: the last that grants or revokes decides, over the AWX verdict.
  const flags = new Map<Flag, Decision>(FLAGS.map((flag) => [flag, awx.flags[flag] ?? NONE]));
  const organizations = new Map<string, Target<{ organization: string; role: OrganizationRole }>>();
  const teams = new Map<string, Target<{ organization: string; team: string; role: TeamRole }>>();
  const note = <T>(map: Map<string, Target<T>>, key: string, target: T, decision: Decision, byRule: boolean) => {
    const held = map.get(key);
    map.set(key, { target, byRule, decision: held && !byRule ? mergeDecisions(held.decision, decision) : decision });
  };
  for (const { organization, role, ...decision } of awx.organizations) note(organizations, organizationKey(organization, role), { organization, role }, decision, false);
  for (const { organization, team, role, ...decision } of awx.teams) note(teams, teamKey(organization, team, role), { organization, team, role }, decision, false);
  // "Every other organization (team) of the database": only those the user holds can change.
  for (const others of awx.revokeOthers) {
    const decision: Decision = { verdict: 'revoke', decidedBy: others.decidedBy };
    if (others.kind === 'organization') {
      for (const held of holdings.organizations.filter((h) => h.role === others.role && !others.except.some((e) => e.organization === h.organization))) {
        note(organizations, organizationKey(held.organization, held.role), held, decision, false);
      }
    } else {
      for (const held of holdings.teams.filter((h) => h.role === others.role && !others.except.some((e) => e.organization === h.organization && e.team === h.team))) {
        note(teams, teamKey(held.organization, held.team, held.role), held, decision, false);
      }
    }
  }
  for (const { rule, path, label } of rules.filter(({ rule }) => rule.map_type !== 'allow')) {
    const verdict = holds.get(path) ? 'grant' : rule.revoke ? 'revoke' : 'none';
    const what = ruleTargetWords(rule);
    steps.push(`${label}: its trigger ${holds.get(path) ? `holds: grants ${what}` : rule.revoke ? `does not hold: revokes ${what}` : `does not hold: decides nothing on ${what}`}.`);
    if (verdict === 'none') continue;
    const decision: Decision = { verdict, decidedBy: path };
    if (rule.map_type === 'organization') note(organizations, organizationKey(rule.organization!, rule.role!), { organization: rule.organization!, role: rule.role as OrganizationRole }, decision, true);
    else if (rule.map_type === 'team') note(teams, teamKey(rule.organization!, rule.team!, rule.role!), { organization: rule.organization!, team: rule.team!, role: rule.role as TeamRole }, decision, true);
    else flags.set(rule.map_type as Flag, decision);
  }

  // Objects: those the maps name, and those a grant needs (a rule's always; AWX's while createsGranted).
  const createdOrganizations = new Set<string>();
  const createdTeams = new Map<string, { organization: string; team: string }>();
  const organizationExists = (organization: string) => input.existing.organizations.has(organization) || createdOrganizations.has(organization);
  const teamExists = (organization: string, team: string) => input.existing.teams.has(teamName(organization, team)) || createdTeams.has(teamName(organization, team));
  const makeOrganization = (organization: string) => {
    if (!organizationExists(organization)) createdOrganizations.add(organization);
  };
  const makeTeam = (organization: string, team: string) => {
    makeOrganization(organization);
    if (!teamExists(organization, team)) createdTeams.set(teamName(organization, team), { organization, team });
  };
  for (const named of awx.namedObjects) {
    if (named.team === undefined) makeOrganization(named.organization);
    else makeTeam(named.organization, named.team);
  }
  const dropped = (entry: Target<unknown>, what: string) => {
    steps.push(`${entry.decision.decidedBy}: ${what} does not exist, and this login's settings make no object a grant names: the grant is dropped.`);
    entry.decision = NONE;
  };
  for (const entry of organizations.values()) {
    const { organization } = entry.target;
    if (entry.decision.verdict !== 'grant' || organizationExists(organization)) continue;
    if (entry.byRule || awx.createsGranted) makeOrganization(organization);
    else dropped(entry, `Organization ${quoted(organization)}`);
  }
  for (const entry of teams.values()) {
    const { organization, team } = entry.target;
    if (entry.decision.verdict !== 'grant' || teamExists(organization, team)) continue;
    if (entry.byRule || awx.createsGranted) makeTeam(organization, team);
    else dropped(entry, `Team ${quoted(team)} in ${quoted(organization)}`);
  }

  const heldOrganization = new Set(holdings.organizations.map((h) => organizationKey(h.organization, h.role)));
  const heldTeam = new Set(holdings.teams.map((h) => teamKey(h.organization, h.team, h.role)));
  for (const held of holdings.organizations) if (!organizations.has(organizationKey(held.organization, held.role))) organizations.set(organizationKey(held.organization, held.role), { target: held, decision: NONE, byRule: false });
  for (const held of holdings.teams) if (!teams.has(teamKey(held.organization, held.team, held.role))) teams.set(teamKey(held.organization, held.team, held.role), { target: held, decision: NONE, byRule: false });

  return {
    allowed: true,
    refusedBy: null,
    flags: Object.fromEntries(FLAGS.map((flag) => [flag, outcomeOf(flags.get(flag)!, holdings.flags[flag])])) as Outcome['flags'],
    organizations: [...organizations.entries()]
      .map(([key, { target, decision }]) => ({ ...target, ...outcomeOf(decision, heldOrganization.has(key)), creates: createdOrganizations.has(target.organization) }))
      .filter((entry) => entry.before || entry.after)
      .sort((a, b) => compareText(a.organization, b.organization) || ORGANIZATION_ROLES.indexOf(a.role) - ORGANIZATION_ROLES.indexOf(b.role)),
    teams: [...teams.entries()]
      .map(([key, { target, decision }]) => ({ ...target, ...outcomeOf(decision, heldTeam.has(key)), creates: createdTeams.has(teamName(target.organization, target.team)) }))
      .filter((entry) => entry.before || entry.after)
      .sort((a, b) => compareText(a.organization, b.organization) || compareText(a.team, b.team) || TEAM_ROLES.indexOf(a.role) - TEAM_ROLES.indexOf(b.role)),
    creates: { organizations: [...createdOrganizations], teams: [...createdTeams.values()] },
    steps,
  };
}

/** A refused login changes nothing: the flags stay, the lists are empty, nothing is made. */
function refused(refusedBy: string, holdings: Holdings, steps: string[]): Outcome {
  return {
    allowed: false,
    refusedBy,
    flags: Object.fromEntries(FLAGS.map((flag) => [flag, outcomeOf(NONE, holdings.flags[flag])])) as Outcome['flags'],
    organizations: [],
    teams: [],
    creates: { organizations: [], teams: [] },
    steps,
  };
}

/** Code-point order, the same on every machine (names compare exactly, SPEC §21). */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
