import { ownedResourceList } from '../resources/resource-lists';
import { ActivityRecord } from '../common/activity-record';
import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { Clock } from '../common/clock';
import { z } from 'zod';
import { OwnedRecords } from '../resources/owned-records';
import { OwnedResourceDefinition, OwnedResourceService } from '../resources/owned-resource.service';
import { NAME_FIELDS } from '../resources/resource-fields';
import { SecretBox } from '../common/secret-box';
import { Credential } from './credential.entity';
import { CREDENTIAL_TYPES, credentialInputs, Inputs, parseStoredInputs, sealInputs } from './credential-inputs';
import { serializeCredential } from './credential.serializer';

/** A credential is a name, an optional description, a type ("machine") and its inputs (SPEC §10). */
function credentialDefinition(box: SecretBox): OwnedResourceDefinition<Credential> {
  return {
    path: '/api/v2/credentials/',
    schema: z.object({
      ...NAME_FIELDS,
      credential_type: z.enum(CREDENTIAL_TYPES).optional(),
      inputs: credentialInputs.optional(),
    }),
    columns: { name: 'name', description: 'description', credential_type: 'credentialType', inputs: 'inputs' },
    defaults: { description: '', credentialType: 'machine', inputs: '{}' },
    // The inputs given replace the stored ones (AWX); a secret sent back as "$encrypted$" is kept.
    prepare(input, current) {
      if (input.inputs === undefined) return input;
      const stored = current ? parseStoredInputs(current.inputs) : {};
      return { ...input, inputs: JSON.stringify(sealInputs(input.inputs as Inputs, stored, box)) };
    },
    view: serializeCredential,
    streamKind: 'credential',
  };
}

@Injectable()
export class CredentialsService extends OwnedResourceService<Credential> {
  constructor(@InjectRepository(Credential) repository: Repository<Credential>, clock: Clock, @Inject(APP_CONFIG) config: AppConfig, activity: ActivityRecord) {
    const list = ownedResourceList({ credential_type: { property: 'credentialType', type: 'string' }, inputs: 'secret' });
    super(new OwnedRecords(repository, clock, list), credentialDefinition(new SecretBox(config.secretKey)), activity);
  }
}
