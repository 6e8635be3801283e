import type { Principal } from '../common/principal';
import { resourceFields } from '../resources/resource-view';
import type { Credential } from './credential.entity';
import { maskInputs, parseStoredInputs } from './credential-inputs';

/** AWX's CredentialSerializer fields that mean something here; secrets read "$encrypted$". */
export function serializeCredential(credential: Credential, principal: Principal): Record<string, unknown> {
  return {
    ...resourceFields(credential, { type: 'credential', url: `/api/v2/credentials/${credential.id}/`, principal }),
    credential_type: credential.credentialType,
    inputs: maskInputs(parseStoredInputs(credential.inputs)),
  };
}
