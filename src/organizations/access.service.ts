import { Injectable } from '@nestjs/common';
import type { Account } from '../common/principal';
import { SettingsService } from '../settings/settings.service';
import { RolesRepository } from './roles.repository';
import { Standing } from './standing';

/** The caller's standing among organizations and teams, read once per request that needs it (SPEC §21). */
@Injectable()
export class Access {
  constructor(
    private readonly roles: RolesRepository,
    private readonly settings: SettingsService,
  ) {}

  async standingOf(caller: { user: Account }): Promise<Standing> {
    // A superuser holds every role: nothing to read.
    const held = caller.user.isSuperuser ? [] : await this.roles.heldBy(caller.user.id);
    return new Standing(caller.user, held, this.settings.get('MANAGE_ORGANIZATION_AUTH'));
  }

  /** ORG_ADMINS_CAN_SEE_ALL_USERS for this caller: every user is shown to an admin or auditor of any organization. */
  seesAllUsers(standing: Standing): boolean {
    return standing.readsAll || (this.settings.get('ORG_ADMINS_CAN_SEE_ALL_USERS') && standing.adminOrAuditorSomewhere);
  }
}
