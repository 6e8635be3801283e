import { z } from 'zod';
import { text } from '../common/validation';
import type { LoginMethod } from './login-methods';
import type { User } from './user.entity';

const DATE_TIME_FORMAT = 'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].';

/** DRF's DateTimeField: ISO 8601 with an offset or Z; parsed to the instant. */
const dateTime = z
  .string({ error: DATE_TIME_FORMAT })
  .refine((s) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})$/.test(s) && !Number.isNaN(Date.parse(s)), DATE_TIME_FORMAT)
  .transform((s) => new Date(s));

/**
 * The body of POST, PUT and (partial) PATCH `/api/v2/users/…`, with AWX's field lengths; also the body that
 * makes a user through an organization's or team's user list (SPEC §21).
 */
export const USER_BODY = z.object({
  username: text(150),
  // Room for LOCAL_PASSWORD_MAX_LENGTH's 4096 code points in UTF-16 units: the policy counts and names the limit.
  password: text(8192, { blank: true }).optional(),
  first_name: text(150, { blank: true }).optional(),
  last_name: text(150, { blank: true }).optional(),
  email: text(254, { blank: true }).optional(),
  is_superuser: z.boolean().optional(),
  is_system_auditor: z.boolean().optional(),
  is_active: z.boolean().optional(),
  // SPEC §22: a date-time or null (none); written by superusers only (the controller).
  account_expires: dateTime.nullable().optional(),
  // Checked only when it is needed (an own password change): anything but a string counts as absent.
  old_password: z.string().optional().catch(undefined),
});

/** AWX's refusal of a change to a field a login method owns. */
export function managedMessage(field: string, label: string): string {
  return `Unable to change ${field} on user managed by ${label}.`;
}

/**
 * What the API may not change on a login method's user (SPEC §14): each field the method owns that `input`
 * would change, with AWX's refusal.
 */
export function managedChanges(user: User, input: Record<string, unknown>, method: Pick<LoginMethod, 'label' | 'managedFields'>): Record<string, string[]> {
  const current: Record<string, unknown> = {
    username: user.username, first_name: user.firstName, last_name: user.lastName, email: user.email,
    is_superuser: user.isSuperuser, is_system_auditor: user.isSystemAuditor,
  };
  const errors: Record<string, string[]> = {};
  for (const field of method.managedFields(user)) {
    const value = input[field];
    if (field === 'password' ? value !== undefined && value !== '' && value !== '$encrypted$' : value !== undefined && value !== current[field]) {
      errors[field] = [managedMessage(field, method.label)];
    }
  }
  return errors;
}

/** A user's fields as a write gives them (the API's body, a command, a login's provisioning). */
export interface UserInput {
  username: string;
  password: string;
  first_name: string;
  last_name: string;
  email: string;
  is_superuser: boolean;
  is_system_auditor: boolean;
  is_active: boolean;
  account_expires: Date | null;
  /** Set by the LDAP login only (the API's body has no such field). */
  ldap_dn: string | null;
}
