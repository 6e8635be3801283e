import { Module, OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SettingsModule } from '../settings/settings.module';
import { UserVisibility } from '../users/user-visibility';
import { UsersModule } from '../users/users.module';
import { Access } from './access.service';
import { GrantsService } from './grants.service';
import { Organization } from './organization.entity';
import { OrganizationsController } from './organizations.controller';
import { OrganizationsRepository } from './organizations.repository';
import { OrganizationsService } from './organizations.service';
import { RoleMember } from './role-member.entity';
import { Role } from './role.entity';
import { RolesController } from './roles.controller';
import { RolesRepository } from './roles.repository';
import { OrganizationActivity } from './organization-activity';
import { RolesService } from './roles.service';
import { userScope } from './scopes';
import { Team } from './team.entity';
import { TeamsController } from './teams.controller';
import { TeamsService } from './teams.service';

/**
 * Organizations, teams and their roles (SPEC §21): the API, and RolesRepository, through which the maps apply
 * what a login grants. It tells `users` whom a caller sees (UserVisibility) at start-up.
 */
@Module({
  imports: [TypeOrmModule.forFeature([Organization, Team, Role, RoleMember]), SettingsModule, UsersModule],
  controllers: [OrganizationsController, TeamsController, RolesController],
  providers: [Access, OrganizationActivity, RolesRepository, OrganizationsRepository, OrganizationsService, TeamsService, GrantsService, RolesService],
  exports: [RolesRepository],
})
export class OrganizationsModule implements OnModuleInit {
  constructor(
    private readonly visibility: UserVisibility,
    private readonly access: Access,
  ) {}

  onModuleInit(): void {
    this.visibility.register(async (viewer) => {
      const standing = await this.access.standingOf({ user: viewer });
      const scope = this.access.seesAllUsers(standing) ? null : userScope(false);
      return scope === null ? { all: true } : { all: false, where: scope, params: { viewerId: viewer.id } };
    });
  }
}
