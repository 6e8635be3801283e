import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import type { Principal } from '../common/principal';
import { LoginLocksService } from './login-locks.service';
import { UserIdentities } from './user-identities';
import type { User } from './user.entity';
import { serializeUser } from './user.serializer';

/**
 * §8's user resource as every list of users shows it (`/api/v2/users/`, and the holder lists of SPEC §21):
 * each user with its linked external identities (`auth`) and whether a pair of its name is locked
 * (`login_locked`, SPEC §22) and whether it is the break-glass superuser, in lookups the page's users share.
 */
@Injectable()
export class UserPresenter {
  constructor(
    private readonly identities: UserIdentities,
    private readonly locks: LoginLocksService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async present(principal: Principal, users: User[]): Promise<Record<string, unknown>[]> {
    // Only external users have linked identities: a page of local users costs no lookup.
    const external = users.filter((u) => u.externalAccount).map((u) => u.id);
    const auth = external.length ? await this.identities.of(external) : new Map<number, never[]>();
    // SPEC §22's `login_locked` and `break_glass`: from the request's own front-door row when it settles them,
    // else one lookup per user, which concurrent requests share.
    const facts = await Promise.all(users.map(async (u) => this.locks.userFacts(u)));
    const view = { viewer: principal.user as User, oauth2Enabled: this.config.oauth2ProviderEnabled };
    return users.map((u, i) =>
      serializeUser(u, { ...view, auth: auth.get(u.id) ?? [], loginLocked: facts[i].locked, breakGlassId: facts[i].breakGlassId }),
    );
  }

  async presentOne(principal: Principal, user: User): Promise<Record<string, unknown>> {
    return (await this.present(principal, [user]))[0];
  }
}
