import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';

export type AuthMethod = 'session' | 'basic' | 'token';
export type TokenScope = 'read' | 'write';

/**
 * The account behind a request, as the pipeline sees it. The pipeline owns this shape so that `common`
 * imports no feature; the users module's entity implements it (a drift is a compile error there).
 */
export interface Account {
  id: number;
  username: string;
  /** `username` as names compare (NFKC, case folded); not read on the request path. */
  usernameFolded: string | null;
  firstName: string;
  lastName: string;
  email: string;
  password: string;
  isSuperuser: boolean;
  isSystemAuditor: boolean;
  isActive: boolean;
  externalAccount: string | null;
  /** Whether the account has a second factor (SPEC §16). */
  mfaEnabled: boolean;
  /** An LDAP user's directory entry (null for others). */
  ldapDn: string | null;
  /** SPEC §22: from this instant every credential of the account is refused (null: never). */
  accountExpires: Date | null;
  /** SPEC §22's inactivity period runs from the latest of `created`, these two (null: none yet). */
  lastLoginEventAt: Date | null;
  reactivatedAt: Date | null;
  /** SPEC §22's `previous_login`: the login before the latest. */
  previousLoginAt: Date | null;
  created: Date;
  modified: Date;
  lastLogin: Date | null;
  /** Revocation cut-offs the validity rules read (see the users module's entity). */
  sessionsEndedBefore: Date | null;
  sessionsEndReason: string | null;
  sessionsKeptId: number | null;
  tokensRevokedBefore: Date | null;
}

/**
 * Who is calling and how they authenticated. Resource modules see only this,
 * never the session or token behind it.
 */
export interface Principal {
  user: Account;
  method: AuthMethod;
  /** Token scope; session and basic callers act with full rights ("write"). */
  scope: TokenScope;
  /** Database id of the session or token that authenticated the request. */
  credentialId?: number;
  /** A session's: when the login that made it completed its second step (SPEC §16), else null or absent. */
  secondStepAt?: Date | null;
}

/** What the credential strategies read of a request: the same on every HTTP adapter. */
export interface CredentialRequest {
  /** The request id (Fastify's `request.id`): log lines written for the request carry it. */
  id?: string;
  method: string;
  /** The route the router matched (Fastify's request), e.g. to recognise the session event stream. */
  routeOptions?: { url?: string };
  headers: IncomingHttpHeaders;
  cookies?: Record<string, string | undefined>;
  ip?: string;
  socket?: { remoteAddress?: string };
}

export const CurrentPrincipal = createParamDecorator((_: unknown, ctx: ExecutionContext): Principal => {
  return ctx.switchToHttp().getRequest().user as Principal;
});

export const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
