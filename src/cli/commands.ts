import type { CommandDefinition } from './command-layer';
import type * as SessionCommands from './session-commands';
import type * as TokenCommands from './token-commands';
import type * as UserCommands from './user-commands';
import type * as MfaCommands from './mfa-commands';
import type * as LoginTestCommands from './login-test-commands';
import type * as RecordCommands from './record-commands';

/** The implementations, required only when a command runs (they load Nest, TypeORM and the services). */
const users = () => require('./user-commands') as typeof UserCommands;
const sessions = () => require('./session-commands') as typeof SessionCommands;
const tokens = () => require('./token-commands') as typeof TokenCommands;
const mfa = () => require('./mfa-commands') as typeof MfaCommands;
const loginTest = () => require('./login-test-commands') as typeof LoginTestCommands;
const record = () => require('./record-commands') as typeof RecordCommands;

/**
 * Every management command as the help shows it (issue 34): declared here, apart from its implementation,
 * so that `--help` and argument errors need none of the service's modules. Each implementation is a
 * provider of CliModule (src/cli/commands.spec.ts checks it).
 */
export const COMMANDS: CommandDefinition[] = [
  {
    name: 'createsuperuser',
    description: 'Create a superuser account',
    options: [
      { flags: '--username <username>', description: 'login name' },
      { flags: '--email <email>', description: 'e-mail address' },
      { flags: '--password <password>', description: 'password (else MANAGE_PASSWORD, else prompt)' },
      { flags: '--skip-policy', description: 'accept a password the LOCAL_PASSWORD_* policy refuses' },
    ],
    implementation: () => users().CreateSuperuserCommand,
  },
  {
    name: 'changepassword',
    arguments: '<username>',
    description: "Change a user's password",
    options: [
      { flags: '--password <password>', description: 'new password (else MANAGE_PASSWORD, else prompt)' },
      { flags: '--skip-policy', description: 'accept a password the LOCAL_PASSWORD_* policy refuses' },
    ],
    implementation: () => users().ChangePasswordCommand,
  },
  {
    name: 'enable_local_authentication',
    description: 'Turn local (username/password) authentication on or off',
    options: [
      { flags: '--enable', description: 'allow local logins' },
      { flags: '--disable', description: 'refuse local logins' },
    ],
    implementation: () => users().EnableLocalAuthenticationCommand,
  },
  {
    name: 'unlock_user',
    description: "Unlock a user's login locks (SPEC §22): every address, or one",
    options: [
      { flags: '--user <username>', description: 'the name as logins type it (a user, or a directory name that a lock holds)' },
      { flags: '--address <ip>', description: 'only the lock of this client address' },
    ],
    implementation: () => users().UnlockUserCommand,
  },
  {
    name: 'disable_inactive_users',
    description: 'Deactivate the users idle for ACCOUNT_INACTIVE_DAYS now (SPEC §22), one line each',
    options: [{ flags: '--dry-run', description: 'only list whom it would deactivate' }],
    implementation: () => users().DisableInactiveUsersCommand,
  },
  {
    name: 'reset_mfa',
    description: "Remove every second factor of a user (authenticator app, security keys, recovery codes)",
    options: [{ flags: '--user <username>', description: 'the user locked out of their factors' }],
    implementation: () => mfa().ResetMfaCommand,
  },
  {
    name: 'expire_sessions',
    description: 'End every live session, or those of one user',
    options: [
      { flags: '--user <username>', description: 'only this user' },
    ],
    implementation: () => sessions().ExpireSessionsCommand,
  },
  {
    name: 'cleanup_sessions',
    description: 'Mark timed-out sessions ended and delete those ended over 24 hours ago',
    implementation: () => sessions().CleanupSessionsCommand,
  },
  {
    name: 'cleanup_authentication_events',
    description: 'Delete the authentication events older than N days (SPEC §23), in batches',
    options: [
      { flags: '--days <n>', description: 'keep this many days (default AUTH_EVENTS_RETENTION_DAYS; 0: delete every event)' },
      { flags: '--dry-run', description: 'only count what it would delete' },
    ],
    implementation: () => record().CleanupAuthenticationEventsCommand,
  },
  {
    name: 'cleanup_activitystream',
    description: 'Delete the activity stream entries older than N days (SPEC §23, AWX\'s command), in batches',
    options: [
      { flags: '--days <n>', description: 'keep this many days (default 90, AWX; 0: delete every entry)' },
      { flags: '--dry-run', description: 'list what it would delete, deleting nothing' },
      { flags: '--batch-size <x>', description: 'entries per delete statement (default 500)' },
    ],
    implementation: () => record().CleanupActivityStreamCommand,
  },
  {
    name: 'create_oauth2_token',
    description: 'Create a personal access token for a user and print it',
    options: [
      { flags: '--user <username>', description: 'the user the token acts as' },
      { flags: '--scope <scope>', description: 'read or write (default write)' },
      { flags: '--expires-in <seconds>', description: 'lifetime in seconds, 60 to TOKEN_MAX_LIFETIME_SECONDS (default ACCESS_TOKEN_EXPIRE_SECONDS, capped)' },
    ],
    implementation: () => tokens().CreateOAuth2TokenCommand,
  },
  {
    name: 'revoke_oauth2_tokens',
    description: "Revoke all access tokens (one user's with --user); --all also refresh tokens",
    options: [
      { flags: '--user <username>', description: "only this user's tokens" },
      { flags: '--all', description: 'also revoke refresh tokens' },
    ],
    implementation: () => tokens().RevokeOAuth2TokensCommand,
  },
  {
    name: 'cleartokens',
    description: 'Delete expired and revoked tokens and expired authorization codes',
    implementation: () => tokens().ClearTokensCommand,
  },
  {
    name: 'list_expiring_tokens',
    description: 'List the access tokens that expire soon (id, user, application, expires), soonest first',
    options: [
      { flags: '--within <seconds>', description: 'how soon, in seconds (default TOKEN_EXPIRY_WARNING_SECONDS)' },
    ],
    implementation: () => tokens().ListExpiringTokensCommand,
  },
  {
    name: 'login_test',
    description: "Explain what a password method's login would do, step by step, without logging in (exit 0 if it would succeed)",
    options: [
      { flags: '--method <method>', description: 'the method (its external_account: ldap, radius, or a registered one)' },
      { flags: '--server <server>', description: "one of the method's servers, where it has several (LDAP: default, 1 … 5)" },
      { flags: '--username <username>', description: 'the name typed at the login' },
      { flags: '--password <password>', description: 'its password (else MANAGE_PASSWORD, else prompt)' },
    ],
    implementation: () => loginTest().LoginTestCommand,
  },
  {
    name: 'ldap_test',
    description: 'login_test --method ldap: explain what an LDAP login would do (exit 0 if it would succeed)',
    options: [
      { flags: '--server <server>', description: 'one directory: default, 1, 2, 3, 4 or 5 (else all, in login order)' },
      { flags: '--username <username>', description: 'the name typed at the login' },
      { flags: '--password <password>', description: 'its password (else MANAGE_PASSWORD, else prompt)' },
    ],
    implementation: () => loginTest().LdapTestCommand,
  },
  {
    name: 'radius_test',
    description: 'login_test --method radius: explain what a RADIUS login would do (exit 0 if it would succeed)',
    options: [
      { flags: '--username <username>', description: 'the name typed at the login' },
      { flags: '--password <password>', description: 'its password (else MANAGE_PASSWORD, else prompt)' },
    ],
    implementation: () => loginTest().RadiusTestCommand,
  },
];
