import { Controller } from '@nestjs/common';
import { OwnedResourceController } from '../resources/owned-resource.controller';
import { Host } from './host.entity';
import { HostsService } from './hosts.service';

/** `/api/v2/hosts/` and `/api/v2/hosts/N/` (seed §4: the bearer GET and the example POST). */
@Controller('api/v2/hosts')
export class HostsController extends OwnedResourceController<Host> {
  constructor(protected readonly resources: HostsService) {
    super();
  }
}
