import { Module } from '@nestjs/common';
import { timingSafeEqual } from 'node:crypto';
import { ExternalLoginsModule } from '../../src/external-logins/external-logins.module';
import { ExternalMethods } from '../../src/external-logins/external-methods';
import type { PasswordProof } from '../../src/external-logins/external-method';
import { combineParts } from '../../src/maps/dialects/awx-part';
import type { MapSourceReader } from '../../src/maps/map-sources';
import { BackendAttempt, PasswordBackendUnavailable } from '../../src/users/login-methods';

/**
 * A login method that only the test suite defines (issue 39, docs/architecture.md "A new login method"): a
 * directory of PINs in memory. It is written exactly as the docs tell a team to write one, and nothing
 * outside this file names it: its proof of an attempt and one registration with the external-login pipeline.
 */
export const PIN_ACCOUNT = 'pin';

export interface PinEntry {
  pin: string;
  email: string;
  superuser?: boolean;
}

/** The directory's entries, and a switch that takes it out of reach. */
export const pinDirectory = { entries: new Map<string, PinEntry>(), reachable: true };

function prove(attempt: BackendAttempt): Promise<PasswordProof> {
  if (!pinDirectory.reachable) throw new PasswordBackendUnavailable('pins', 'unreachable', 'The PIN directory is unavailable; try again later.');
  const entry = pinDirectory.entries.get(attempt.username);
  if (!entry) return Promise.resolve({ refused: 'unknown_user', source: null });
  const typed = Buffer.from(attempt.password);
  const known = Buffer.from(entry.pin);
  if (typed.length !== known.length || !timingSafeEqual(typed, known)) return Promise.resolve({ refused: 'wrong_pin', source: 'pins' });
  const claims = { username: attempt.username, email: entry.email, groups: entry.superuser ? ['superusers'] : [], attributes: {} };
  return Promise.resolve({
    source: 'pins',
    proven: { account: PIN_ACCOUNT, source: { family: PIN_ACCOUNT, instance: null }, username: attempt.username, fields: { email: entry.email }, claims, vouchedBy: { directory: 'pins' } },
  });
}

/** Its flags: a member of `superusers` is one (the maps apply it, and AUTHENTICATION_MAPS after it). */
const pinMaps: MapSourceReader = {
  family: PIN_ACCOUNT,
  accepts: (instance) => instance === null,
  keys: () => [],
  awxVerdicts: (_instance, claims) => {
    const superuser = claims.groups.includes('superusers');
    const step = `PIN directory: ${superuser ? 'in' : 'not in'} superusers.`;
    return combineParts([{ steps: [step], flags: { is_superuser: { verdict: superuser ? 'grant' : 'revoke', decidedBy: 'PIN_SUPERUSERS', step } } }], true);
  },
};

@Module({ imports: [ExternalLoginsModule] })
export class PinDirectoryModule {
  constructor(methods: ExternalMethods) {
    methods.register({
      method: {
        account: PIN_ACCOUNT,
        label: 'PIN directory',
        provesPassword: true,
        person: true,
        remote: true,
        configured: () => pinDirectory.entries.size > 0,
        managedFields: () => ['username', 'password', 'email', 'is_superuser'],
        repeatTtlMs: () => 0,
      },
      mapReaders: [pinMaps],
      prove,
    });
  }
}
