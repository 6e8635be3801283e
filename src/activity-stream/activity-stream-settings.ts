import { z } from 'zod';
import { integer } from '../common/validation';
import type { SettingDefinition } from '../settings/setting-definition';

/** AWX's `system` category: the stream's two keys (SPEC §23). */
export const SYSTEM_CATEGORY = 'system';

/** 0 keeps everything; else 1–3650 days (355: the days AWX's scheduled "Cleanup Activity Stream" job keeps). */
const retentionDays = z.union([z.literal(0), integer(1, 3650)]);

export const ACTIVITY_STREAM_SETTINGS: SettingDefinition[] = [
  { key: 'ACTIVITY_STREAM_ENABLED', category: SYSTEM_CATEGORY, default: true, schema: z.boolean() },
  { key: 'ACTIVITY_STREAM_RETENTION_DAYS', category: SYSTEM_CATEGORY, default: 355, schema: retentionDays },
] as SettingDefinition[];
