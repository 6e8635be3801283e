import { Injectable } from '@nestjs/common';
import { ActivityRecord, StreamOperation } from '../common/activity-record';
import type { RequestTrace } from '../common/request-context';
import type { SettingDefinition } from './setting-definition';
import { maskSecrets } from './setting-secrets';

/**
 * The stream's entries of a settings write (SPEC §23; AWX records a key's first write only, we every write): one
 * per key whose stored value the write changed, `create` when first stored, `update` after, `delete` at a reset,
 * the values as the settings API reads them. The writes of ACTIVITY_STREAM_ENABLED are recorded while it is off.
 */
@Injectable()
export class SettingsActivity {
  constructor(private readonly record: ActivityRecord) {}

  /** `before` and `after`: the stored values around the write (a key absent: not stored). */
  changed(definitions: Iterable<SettingDefinition>, before: ReadonlyMap<string, unknown>, after: ReadonlyMap<string, unknown>, trace: RequestTrace): void {
    for (const def of definitions) {
      if (def.hidden || def.readOnly) continue;
      const shown = (value: unknown) => (def.secret ? maskSecrets(value) : value);
      const [was, is] = [before.has(def.key), after.has(def.key)];
      let operation: StreamOperation;
      let changes: Record<string, unknown>;
      if (!was && !is) continue;
      if (!was) [operation, changes] = ['create', { value: shown(after.get(def.key)) }];
      else if (!is) [operation, changes] = ['delete', { value: shown(before.get(def.key)) }];
      else if (JSON.stringify(before.get(def.key)) === JSON.stringify(after.get(def.key))) continue;
      else [operation, changes] = ['update', { value: [shown(before.get(def.key)), shown(after.get(def.key))] }];
      this.record.record({
        operation, object1: 'setting', changes, objects: [], setting: { category: def.category, name: def.key }, trace,
        always: def.key === 'ACTIVITY_STREAM_ENABLED',
      });
    }
  }
}
