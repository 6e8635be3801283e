import { Controller } from '@nestjs/common';
import { ObjectRoutesController } from '../common/object-routes.controller';
import { HostsService } from './hosts.service';

/** `/api/v2/hosts/` and `/api/v2/hosts/N/` (seed §4: the bearer GET and the example POST). */
@Controller('api/v2/hosts')
export class HostsController extends ObjectRoutesController {
  constructor(protected readonly objects: HostsService) {
    super();
  }
}
