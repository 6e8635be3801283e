import { Injectable, Module, OnModuleInit } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { timingSafeEqual } from 'node:crypto';
import { Strategy as PassportLocalStrategy } from 'passport-local';
import { BackendOutcome, LoginMethods, PasswordBackendUnavailable, passwordAttemptOf } from '../../src/users/login-methods';
import { Provisioning, ProvisioningInput } from '../../src/users/provisioning';
import { UsersModule } from '../../src/users/users.module';

/**
 * A login method that only the test suite defines (issue 39, docs/architecture.md "A new login method"): a
 * directory of PINs in memory. It is written exactly as the docs tell a team to write one, and nothing
 * outside this file names it: one Passport strategy for its password proof (on passport-local), one
 * provisioning input, one registration with the login methods registry.
 */
export const PIN_ACCOUNT = 'pin';
const PIN_STRATEGY = 'pin-directory';

export interface PinEntry {
  pin: string;
  email: string;
  superuser?: boolean;
}

/** The directory's entries, and a switch that takes it out of reach. */
export const pinDirectory = { entries: new Map<string, PinEntry>(), reachable: true };

@Injectable()
export class PinStrategy extends PassportStrategy(PassportLocalStrategy, PIN_STRATEGY) {
  constructor(private readonly provisioning: Provisioning) {
    super({ passReqToCallback: true });
  }

  async validate(req: object): Promise<BackendOutcome> {
    const { attempt, existing } = passwordAttemptOf(req);
    if (!pinDirectory.reachable) throw new PasswordBackendUnavailable('pins', 'unreachable', 'The PIN directory is unavailable; try again later.');
    const entry = pinDirectory.entries.get(attempt.username);
    if (!entry) return { refused: 'unknown_user', source: null };
    const typed = Buffer.from(attempt.password);
    const known = Buffer.from(entry.pin);
    if (typed.length !== known.length || !timingSafeEqual(typed, known)) return { refused: 'wrong_pin', source: 'pins' };
    const input: ProvisioningInput = { account: PIN_ACCOUNT, source: { directory: 'pins' }, event: 'pin', fields: { email: entry.email }, flags: { is_superuser: !!entry.superuser } };
    const user = existing ? await this.provisioning.refresh(existing, input, attempt.trace) : await this.provisioning.create(attempt.username, input, attempt.trace);
    return { user, source: 'pins' };
  }
}

@Module({ imports: [UsersModule], providers: [PinStrategy] })
export class PinDirectoryModule implements OnModuleInit {
  constructor(private readonly methods: LoginMethods) {}

  onModuleInit(): void {
    this.methods.register({
      account: PIN_ACCOUNT,
      label: 'PIN directory',
      provesPassword: true,
      person: true,
      remote: true,
      configured: () => pinDirectory.entries.size > 0,
      managedFields: () => ['username', 'password', 'email', 'is_superuser'],
      repeatTtlMs: () => 0,
      strategy: PIN_STRATEGY,
    });
  }
}
