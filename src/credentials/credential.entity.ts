import { Column, Entity } from 'typeorm';
import { OwnedResource } from '../resources/owned-resource.entity';

/**
 * A stored secret for automation to use, as AWX's `main_credential`. `inputs` is JSON text in which
 * every secret value is sealed with SECRET_KEY (credential-inputs.ts); nothing else holds it.
 */
@Entity({ name: 'main_credential' })
export class Credential extends OwnedResource {
  @Column({ name: 'credential_type', type: 'varchar', length: 64 })
  credentialType: string;

  @Column({ type: 'text' })
  inputs: string;
}
