import { Controller } from '@nestjs/common';
import { OwnedResourceController } from '../resources/owned-resource.controller';
import { Credential } from './credential.entity';
import { CredentialsService } from './credentials.service';

/** `/api/v2/credentials/` and `/api/v2/credentials/N/` (seed §4: the `curl -L` list). */
@Controller('api/v2/credentials')
export class CredentialsController extends OwnedResourceController<Credential> {
  constructor(protected readonly resources: CredentialsService) {
    super();
  }
}
