import type { z } from 'zod';

export interface SettingDefinition<T = unknown> {
  key: string;
  /** Category slug of `/api/v2/settings/<slug>/`. */
  category: string;
  default: T;
  /**
   * What a value must be (zod): a write, an environment default and a management command are parsed
   * with it, and what it outputs is stored. A failure is `{"KEY": ["message"]}` with 400.
   */
  schema: z.ZodType<T>;
  /** Write-only: stored encrypted, read back as "$encrypted$". */
  secret?: boolean;
  /** Computed, shown but not writable. */
  readOnly?: boolean;
  /**
   * Kept by the service for a rule of its category (stored, so every node and a restart see it), never shown
   * nor writable through the API or the environment: only a category's derivation writes it.
   */
  hidden?: boolean;
}

export const ENCRYPTED_PLACEHOLDER = '$encrypted$';
