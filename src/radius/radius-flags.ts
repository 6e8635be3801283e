import type { ProvisionedFlag } from '../users/provisioning';
import { FlagAttribute, FlagsByAttribute, RADIUS_FLAGS } from './radius-settings';

/** What an Access-Accept does to one flag of RADIUS_USER_FLAGS_BY_ATTR, and why. */
export interface FlagVerdict {
  flag: ProvisionedFlag;
  /** The attribute it is read from; undefined: the flag is not mapped and stays as it is. */
  attribute?: FlagAttribute;
  values: string[];
  set: boolean;
  /** The value of the reply that set it. */
  matched?: string;
}

/**
 * SPEC §20 (beyond AWX: ansible/awx #4068): a flag whose `_attr` is set is set when an attribute of that
 * name in the reply equals one of its values exactly, as UTF-8 text, and cleared otherwise.
 */
export function flagVerdicts(mapping: FlagsByAttribute, attributes: Record<string, string[]>): FlagVerdict[] {
  return RADIUS_FLAGS.map((flag) => {
    const attribute = mapping[`${flag}_attr`];
    const values = mapping[`${flag}_value`] ?? [];
    if (!attribute) return { flag, values, set: false };
    const matched = (attributes[attribute] ?? []).find((value) => values.includes(value));
    return { flag, attribute, values, set: matched !== undefined, matched };
  });
}

/** The flags a login sets or clears (the unmapped ones left out, so that provisioning leaves them as they are). */
export function flagChanges(verdicts: FlagVerdict[]): Partial<Record<ProvisionedFlag, boolean>> {
  return Object.fromEntries(verdicts.filter((v) => v.attribute).map((v) => [v.flag, v.set]));
}

/** One verdict in words, for the explainer. */
export function flagStep(verdict: FlagVerdict): string {
  if (!verdict.attribute) return `${verdict.flag}: not mapped (no ${verdict.flag}_attr in RADIUS_USER_FLAGS_BY_ATTR): left as it is.`;
  if (verdict.set) return `${verdict.flag}: set, by ${verdict.attribute} "${verdict.matched}".`;
  const wanted = verdict.values.length ? verdict.values.map((v) => `"${v}"`).join(', ') : '(no values)';
  return `${verdict.flag}: cleared, no ${verdict.attribute} of the reply equals one of ${wanted}.`;
}
