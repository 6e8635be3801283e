import { DomainError } from '../common/errors';

/** AWX's association refusals answer 400 `{"msg": "..."}`, not `{"detail"}` (SubListAttachDetachAPIView). */
export class AssociationError extends DomainError {
  constructor(message: string) {
    super('invalid', message);
  }

  body(): Record<string, unknown> {
    return { msg: this.detail };
  }
}

export const ID_NOT_INTEGER = '"id" field must be an integer.';
export const ID_REQUIRED_TO_DISASSOCIATE = '"id" is required to disassociate';

/** What an association POST asks (SPEC §21): grant or revoke an id, or (no id) make the object. */
export type Association = { id: number; revoke: boolean } | { id: null };

/**
 * AWX reads the body's `id` and the mere presence of `disassociate`; `associate` means nothing. A JSON
 * integer only (AWX's `isinstance(id, int)`; a boolean is not one here). No id, or a falsy one, is "make".
 */
export function readAssociation(body: unknown): Association {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new AssociationError('invalid type for post data');
  const data = body as Record<string, unknown>;
  const revoke = Object.hasOwn(data, 'disassociate');
  const id = data.id;
  if (id === undefined || id === null || id === 0 || id === '' || id === false) {
    if (revoke) throw new AssociationError(ID_REQUIRED_TO_DISASSOCIATE);
    return { id: null };
  }
  if (typeof id !== 'number' || !Number.isSafeInteger(id)) throw new AssociationError(ID_NOT_INTEGER);
  return { id, revoke };
}
