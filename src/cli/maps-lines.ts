import type { OutcomeView } from '../maps/outcome-view';

/**
 * The maps' verdict as `ldap_test` and `radius_test` print it (SPEC §21): allowed or by what refused, then
 * each flag, organization and team role the login would hold before or after, and what decided it.
 */
export function mapsLines(view: OutcomeView | null): string[] {
  if (!view) return ['Maps: not reached (the source did not vouch for the user).'];
  if (!view.allowed) return [`Maps: refused by ${view.refused_by}.`];
  const change = (v: { verdict: string; before: boolean; after: boolean; decided_by: string | null }) =>
    `${v.before ? 'held' : 'not held'} → ${v.after ? 'held' : 'not held'} (${v.verdict}${v.decided_by ? ` by ${v.decided_by}` : ''})`;
  const lines = ['Maps: allowed.'];
  for (const [flag, v] of Object.entries(view.flags)) lines.push(`Maps: ${flag}: ${change(v)}`);
  for (const o of view.organizations) lines.push(`Maps: organization "${o.organization}" ${o.role}: ${change(o)}${o.creates ? ', made by the login' : ''}`);
  for (const t of view.teams) lines.push(`Maps: team "${t.team}" of "${t.organization}" ${t.role}: ${change(t)}${t.creates ? ', made by the login' : ''}`);
  return lines;
}
