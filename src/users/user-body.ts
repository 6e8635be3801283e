import { z } from 'zod';
import { text } from '../common/validation';

/**
 * The body of POST, PUT and (partial) PATCH `/api/v2/users/…`, with AWX's field lengths; also the body that
 * makes a user through an organization's or team's user list (SPEC §21).
 */
export const USER_BODY = z.object({
  username: text(150),
  password: text(1024, { blank: true }).optional(),
  first_name: text(150, { blank: true }).optional(),
  last_name: text(150, { blank: true }).optional(),
  email: text(254, { blank: true }).optional(),
  is_superuser: z.boolean().optional(),
  is_system_auditor: z.boolean().optional(),
  is_active: z.boolean().optional(),
  // Checked only when it is needed (an own password change): anything but a string counts as absent.
  old_password: z.string().optional().catch(undefined),
});

/** AWX's refusal of a change to a field a login method owns. */
export function managedMessage(field: string, label: string): string {
  return `Unable to change ${field} on user managed by ${label}.`;
}
