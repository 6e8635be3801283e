import { Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RequestTrace } from '../common/request-context';
import type { User } from '../users/user.entity';
import type { SsoSessionFacts } from './sso-sessions.service';

export type SsoRequest = FastifyRequest<{ Querystring: Record<string, unknown> }>;

/** What an attempt has learnt so far: a refusal is reported with the protocol, provider and `next` it knew. */
export interface SsoAttempt {
  kind: string;
  provider: string;
  next: string;
}

/** A login the provider vouched for: the user to log in, and the provider's session to record beside ours. */
export interface SsoLogin {
  user: User;
  providerSession: SsoSessionFacts;
}

/**
 * One single sign-on protocol (issue 39): everything the routes `/sso/login/<kind>/` and
 * `/sso/complete/<kind>/`, `/api/v2/auth/` and the login page need of it. Adding a protocol (an OAuth 2
 * login such as GitHub's) is a folder under `sso/` with a class implementing this, registered with
 * SsoProtocols by SsoModule: the controller, the method list and the login buttons take it from there.
 */
export interface SsoProtocol {
  /** The path segment and key prefix ("oidc" → `/sso/login/oidc/`, keys "oidc:<name>"). */
  readonly kind: string;
  /** How the login page names it ("OpenID Connect"). */
  readonly label: string;
  /** How the provider sends the browser back: a top-level GET (OIDC) or a cross-site form POST (SAML's ACS). */
  readonly completeMethod: 'GET' | 'POST';
  /** The enabled providers' names. */
  names(): string[];
  /** What `/api/v2/auth/` shows of a provider beside its login and complete URLs (SPEC §7, §17). */
  describe(name: string): Record<string, string>;
  /** Where a provider registers the service's logout endpoint (SPEC §17). */
  logoutUrl(name: string): string;
  /** The first leg: the redirect to the provider (and whatever binds the attempt to this browser). */
  start(attempt: SsoAttempt, req: SsoRequest, res: FastifyReply, trace: RequestTrace): Promise<string>;
  /** The second leg: the provider's answer checked, the user provisioned; `attempt` learns the provider and `next`. */
  complete(attempt: SsoAttempt, req: SsoRequest, res: FastifyReply, trace: RequestTrace): Promise<SsoLogin>;
}

/** The registered protocols, in the order they registered. */
@Injectable()
export class SsoProtocols {
  private readonly protocols = new Map<string, SsoProtocol>();

  register(protocol: SsoProtocol): void {
    this.protocols.set(protocol.kind, protocol);
  }

  get(kind: unknown): SsoProtocol | undefined {
    return typeof kind === 'string' ? this.protocols.get(kind) : undefined;
  }

  all(): SsoProtocol[] {
    return [...this.protocols.values()];
  }
}
