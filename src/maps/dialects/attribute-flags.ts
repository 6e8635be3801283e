import type { Flag } from '../map-contract';
import type { AwxPart } from './awx-part';

/** A flags-by-attribute setting: per flag an attribute and the values that set it (RADIUS_USER_FLAGS_BY_ATTR). */
export type FlagsByAttribute = Partial<Record<`${Flag}_attr`, string> & Record<`${Flag}_value`, string[]>>;

/**
 * SPEC §20 (beyond AWX: ansible/awx #4068): a flag whose `_attr` is set is granted when an attribute of that
 * name equals one of its values exactly, and revoked otherwise; a flag without `_attr` is left as it is.
 * `setting` is the key (`RADIUS_USER_FLAGS_BY_ATTR`), and the PATH its `<flag>_attr`.
 */
export function attributeFlagsPart(setting: string, mapping: FlagsByAttribute, attributes: Record<string, string[]>): AwxPart {
  const part: AwxPart = { steps: [], flags: {} };
  for (const flag of ['is_superuser', 'is_system_auditor'] as const) {
    const attribute = mapping[`${flag}_attr`];
    if (!attribute) continue;
    const values = mapping[`${flag}_value`] ?? [];
    const path = `${setting}.${flag}_attr`;
    const holds = (attributes[attribute] ?? []).some((value) => values.includes(value));
    const step = `${path}: ${holds ? 'a' : 'no'} ${attribute} equals one of ${flag}_value: ${holds ? 'grants' : 'revokes'} ${flag}.`;
    part.flags![flag] = { verdict: holds ? 'grant' : 'revoke', decidedBy: path, step };
    part.steps.push(step);
  }
  return part;
}
