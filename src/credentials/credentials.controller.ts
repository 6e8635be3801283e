import { Controller } from '@nestjs/common';
import { ObjectRoutesController } from '../common/object-routes.controller';
import { CredentialsService } from './credentials.service';

/** `/api/v2/credentials/` and `/api/v2/credentials/N/` (seed §4: the `curl -L` list). */
@Controller('api/v2/credentials')
export class CredentialsController extends ObjectRoutesController {
  constructor(protected readonly objects: CredentialsService) {
    super();
  }
}
