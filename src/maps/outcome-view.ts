import type { Flag, Outcome, Path, TargetOutcome } from './map-contract';
import { FLAGS } from './maps-engine';

/** V of the dry run (SPEC §21). */
export interface TargetView {
  verdict: TargetOutcome['verdict'];
  before: boolean;
  after: boolean;
  decided_by: Path | null;
}

/** OUTCOME of the dry run: the engine's Outcome in the API's words. */
export interface OutcomeView {
  allowed: boolean;
  refused_by: Path | null;
  flags: Record<Flag, TargetView>;
  organizations: ({ organization: string; role: string; creates: boolean } & TargetView)[];
  teams: ({ organization: string; team: string; role: string; creates: boolean } & TargetView)[];
  steps: string[];
}

function view(target: TargetOutcome): TargetView {
  return { verdict: target.verdict, before: target.before, after: target.after, decided_by: target.decidedBy };
}

export function describeOutcome(outcome: Outcome): OutcomeView {
  return {
    allowed: outcome.allowed,
    refused_by: outcome.refusedBy,
    flags: Object.fromEntries(FLAGS.map((flag) => [flag, view(outcome.flags[flag])])) as Record<Flag, TargetView>,
    organizations: outcome.organizations.map((entry) => ({ organization: entry.organization, role: entry.role, creates: entry.creates, ...view(entry) })),
    teams: outcome.teams.map((entry) => ({ organization: entry.organization, team: entry.team, role: entry.role, creates: entry.creates, ...view(entry) })),
    steps: outcome.steps,
  };
}

/** One difference of IMPACT: what the user's next login would leave under the current and the candidate settings. */
export interface ImpactChange {
  kind: 'allow' | 'flag' | 'organization' | 'team';
  flag?: Flag;
  organization?: string;
  team?: string;
  role?: string;
  current: boolean;
  candidate: boolean;
  decided_by: Path | null;
}

type Entry = { key: string; after: boolean; before: boolean; decidedBy: Path | null };

/**
 * The changes between two outcomes of one user's stored login, in IMPACT's words. A refused login changes no
 * role, so on a refused side a target stays as the user holds it (its `before`, which both sides share).
 * `decided_by` is the path that decided the candidate's answer, else the current one's.
 */
export function diffOutcomes(current: Outcome, candidate: Outcome): ImpactChange[] {
  const changes: ImpactChange[] = [];
  if (current.allowed !== candidate.allowed) {
    changes.push({ kind: 'allow', current: current.allowed, candidate: candidate.allowed, decided_by: candidate.refusedBy ?? current.refusedBy });
  }
  for (const flag of FLAGS) {
    const [a, b] = [current.flags[flag], candidate.flags[flag]];
    if (a.after !== b.after) changes.push({ kind: 'flag', flag, current: a.after, candidate: b.after, decided_by: b.decidedBy ?? a.decidedBy });
  }
  const organizationEntries = (outcome: Outcome) => outcome.organizations.map((e) => ({ ...e, key: JSON.stringify([e.organization, e.role]) }));
  const teamEntries = (outcome: Outcome) => outcome.teams.map((e) => ({ ...e, key: JSON.stringify([e.organization, e.team, e.role]) }));
  for (const [key, a, b] of pairs(organizationEntries(current), organizationEntries(candidate), current.allowed, candidate.allowed)) {
    const [organization, role] = JSON.parse(key) as string[];
    changes.push({ kind: 'organization', organization, role, current: a.value, candidate: b.value, decided_by: b.decidedBy ?? a.decidedBy });
  }
  for (const [key, a, b] of pairs(teamEntries(current), teamEntries(candidate), current.allowed, candidate.allowed)) {
    const [organization, team, role] = JSON.parse(key) as string[];
    changes.push({ kind: 'team', organization, team, role, current: a.value, candidate: b.value, decided_by: b.decidedBy ?? a.decidedBy });
  }
  return changes;
}

type Side = { value: boolean; decidedBy: Path | null };

/** The targets whose end state differs, with each side's value. */
function pairs(current: Entry[], candidate: Entry[], currentAllowed: boolean, candidateAllowed: boolean): [string, Side, Side][] {
  const a = new Map(current.map((e) => [e.key, e]));
  const b = new Map(candidate.map((e) => [e.key, e]));
  const out: [string, Side, Side][] = [];
  for (const key of new Set([...a.keys(), ...b.keys()])) {
    const before = a.get(key)?.before ?? b.get(key)?.before ?? false;
    const side = (entry: Entry | undefined, allowed: boolean): Side =>
      entry ? { value: entry.after, decidedBy: entry.decidedBy } : { value: allowed ? false : before, decidedBy: null };
    const [x, y] = [side(a.get(key), currentAllowed), side(b.get(key), candidateAllowed)];
    if (x.value !== y.value) out.push([key, x, y]);
  }
  return out;
}
