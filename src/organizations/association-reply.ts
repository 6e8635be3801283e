import type { FastifyReply } from 'fastify';
import type { AssociationOutcome } from './grants.service';

/** 204 with no body, or 201 with the user made and its address in `Location` (AWX's attach of a new object). */
export function answerAssociation(reply: FastifyReply, outcome: AssociationOutcome): Record<string, unknown> | undefined {
  if (outcome.created === null) {
    reply.code(204);
    return undefined;
  }
  reply.code(201).header('Location', outcome.location);
  return outcome.created;
}
