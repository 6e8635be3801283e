import { RE2JS } from 're2js';
import type { AttributeTest, Triggers } from './authentication-maps';
import type { Claims } from './map-contract';

/** How two names compare: groups (LDAP: as §14 compares DNs) and attribute names (LDAP: ignoring case). */
export interface NameComparers {
  sameGroup: (a: string, b: string) => boolean;
  sameAttribute: (a: string, b: string) => boolean;
}

export const EXACT = (a: string, b: string) => a === b;

/** The values of an attribute named as a rule names it; undefined when the source sent none of that name. */
function attributeValues(claims: Claims, name: string, same: NameComparers['sameAttribute']): string[] | undefined {
  if (same === EXACT) return Object.hasOwn(claims.attributes, name) ? claims.attributes[name] : undefined;
  const found = Object.keys(claims.attributes).filter((held) => same(held, name));
  return found.length ? found.flatMap((held) => claims.attributes[held]) : undefined;
}

/** One test on one value: text, case counting, except `matches` (DAB: re.match with IGNORECASE, from the start). */
function passes(test: AttributeTest, value: string): boolean {
  if (test.equals !== undefined) return value === test.equals;
  if (test.contains !== undefined) return value.includes(test.contains);
  if (test.ends_with !== undefined) return value.endsWith(test.ends_with);
  if (test.in !== undefined) return test.in.includes(value);
  if (test.matches !== undefined) return RE2JS.compile(test.matches, RE2JS.CASE_INSENSITIVE).matcher(value).lookingAt();
  return true;
}

/**
 * Whether a rule's trigger holds (SPEC §21): `always`, `never`, or `groups` and `attributes`, both holding
 * when both are given (DAB: only the last listed counts). In `groups` every key present must hold (DAB: the
 * first present); in `attributes` a test passes when one value passes it, a missing attribute fails it (DAB:
 * skipped), and `join_condition` joins the attributes' results.
 */
export function triggerHolds(triggers: Triggers, claims: Claims, names: NameComparers): boolean {
  if (triggers.always) return true;
  if (triggers.never) return false;
  let holds = true;
  if (triggers.groups) {
    const { has_or, has_and, has_not } = triggers.groups;
    const inGroup = (group: string) => claims.groups.some((held) => names.sameGroup(held, group));
    if (has_or && !has_or.some(inGroup)) holds = false;
    if (has_and && !has_and.every(inGroup)) holds = false;
    if (has_not && has_not.some(inGroup)) holds = false;
  }
  if (triggers.attributes) {
    const { join_condition, ...tests } = triggers.attributes;
    const results = Object.entries(tests).map(([name, test]) => {
      const values = attributeValues(claims, name, names.sameAttribute);
      const presence = Object.keys(test as AttributeTest).length === 0;
      return values !== undefined && (presence || values.some((value) => passes(test as AttributeTest, value)));
    });
    const joined = join_condition === 'and' ? results.every(Boolean) : results.some(Boolean);
    if (!joined) holds = false;
  }
  return holds;
}
