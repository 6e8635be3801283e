import { Injectable } from '@nestjs/common';
import { andThen, Awaitable } from '../common/awaitable';
import type { AuthenticationSettings } from '../settings/authentication-settings';
import { SettingsService } from '../settings/settings.service';
import { CredentialCheck, LocalCredentialsService, RepeatCache } from './local-credentials.service';
import { LoginMethods } from './login-methods';
import type { User } from './user.entity';

/** What a second step may ask of a user who proved their password (SPEC §16). */
export type SecondStepDemand = 'verify' | 'setup' | null;

/** A proven password: the user, and the second step still owed before the password may stand for a login. */
export interface PasswordProof {
  user: User;
  secondStep: SecondStepDemand;
}

/**
 * The one password check every password path calls (issue 39): the login form (through passport-local),
 * basic, the password grant, and the device and consent pages' own basic. It proves the password against
 * the local hash or the user's login method (LocalCredentialsService: the throttle reserved and settled
 * once, the account policy, the events), then says whether a second step is owed, by the user's login
 * method as the registry declares it: no path can forget the second step of a method it does not know.
 */
@Injectable()
export class PasswordCheck {
  constructor(
    private readonly credentials: LocalCredentialsService,
    private readonly methods: LoginMethods,
    private readonly settings: SettingsService,
  ) {}

  prove(attempt: CredentialCheck, cache?: RepeatCache): Awaitable<PasswordProof> {
    return andThen(this.credentials.check(attempt, cache), (user) => ({ user, secondStep: this.secondStepOf(user) }));
  }

  /**
   * Users of a method that proves passwords here may be asked (local accounts, a directory's users); users
   * who prove themselves at an identity provider, and accounts no person logs in as, never are. A user with
   * a factor verifies it; one that MFA_REQUIRED_FOR names sets one up.
   */
  secondStepOf(user: Pick<User, 'externalAccount' | 'mfaEnabled' | 'isSuperuser'>): SecondStepDemand {
    if (!this.methods.of(user).provesPassword) return null;
    if (user.mfaEnabled) return 'verify';
    const required = this.settings.get<AuthenticationSettings['MFA_REQUIRED_FOR']>('MFA_REQUIRED_FOR');
    return required === 'all' || (required === 'superusers' && user.isSuperuser) ? 'setup' : null;
  }
}
