import { UsersAndSettings1763800000000 } from './1763800000000-users-and-settings';
import { Sessions1763850000000 } from './1763850000000-sessions';
import { LoginThrottle1763860000000 } from './1763860000000-login-throttle';
import { Tokens1763900000000 } from './1763900000000-tokens';
import { Resources1763950000000 } from './1763950000000-resources';
import { Sso1764000000000 } from './1764000000000-sso';
import { LoginAttemptsInFlight1764100000000 } from './1764100000000-login-attempts-in-flight';
import { LaunchPrompts1764200000000 } from './1764200000000-launch-prompts';
import { TokenFamilies1764300000000 } from './1764300000000-token-families';
import { ExactSubjects1764400000000 } from './1764400000000-exact-subjects';
import { SsoStateClient1764500000000 } from './1764500000000-sso-state-client';
import { RevocationCutoffs1764600000000 } from './1764600000000-revocation-cutoffs';
import { ThrottleSweepIndex1764650000000 } from './1764650000000-throttle-sweep-index';
import { TokenPlanIndexes1764700000000 } from './1764700000000-token-plan-indexes';
import { TokenLifetime1764800000000 } from './1764800000000-token-lifetime';
import { DeviceCodes1764810000000 } from './1764810000000-device-codes';
import { ServiceAccounts1764820000000 } from './1764820000000-service-accounts';
import { PendingState1764830000000 } from './1764830000000-pending-state';
import { TwoStep1764840000000 } from './1764840000000-two-step';
import { LdapDn1764900000000 } from './1764900000000-ldap-dn';
import { SsoSessions1765000000000 } from './1765000000000-sso-sessions';
import { SessionSecondStep1765140000000 } from './1765140000000-session-second-step';
import { Organizations1765200000000 } from './1765200000000-organizations';
import { UsernameFolded1765300000000 } from './1765300000000-username-folded';
import { SessionSource1765430000000 } from './1765430000000-session-source';
import { PasswordHistory1765400000000 } from './1765400000000-password-history';
import { SettingValueMediumtext1765410000000 } from './1765410000000-setting-value-mediumtext';
import { LoginLocks1765420000000 } from './1765420000000-login-locks';
import { AccountExpiry1765440000000 } from './1765440000000-account-expiry';
import { AuthenticationEvents1765450000000 } from './1765450000000-authentication-events';
import { ActivityStream1765460000000 } from './1765460000000-activity-stream';
import { PreviousLogin1765470000000 } from './1765470000000-previous-login';

/** Migrations in order; imported as classes so dist and the CLI see the same list. */
export const MIGRATIONS = [
  UsersAndSettings1763800000000, Sessions1763850000000, LoginThrottle1763860000000, Tokens1763900000000,
  Resources1763950000000, Sso1764000000000, LoginAttemptsInFlight1764100000000, LaunchPrompts1764200000000, TokenFamilies1764300000000, ExactSubjects1764400000000, SsoStateClient1764500000000,
  RevocationCutoffs1764600000000, ThrottleSweepIndex1764650000000, TokenPlanIndexes1764700000000, TokenLifetime1764800000000,
  DeviceCodes1764810000000, ServiceAccounts1764820000000, PendingState1764830000000, TwoStep1764840000000, LdapDn1764900000000,
  SsoSessions1765000000000, SessionSecondStep1765140000000, Organizations1765200000000, UsernameFolded1765300000000,
  PasswordHistory1765400000000, SettingValueMediumtext1765410000000, LoginLocks1765420000000, SessionSource1765430000000,
  AccountExpiry1765440000000, AuthenticationEvents1765450000000, ActivityStream1765460000000, PreviousLogin1765470000000,
];
