import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { RequestTrace } from '../common/request-context';
import { PendingStateService } from '../pending-state/pending-state.service';
import { SessionsService } from '../sessions/sessions.service';
import { User } from '../users/user.entity';
import { OidcLogin, OidcTransaction } from './oidc/oidc-login.service';
import { SAML_REQUEST_TTL_SECONDS } from './saml/saml-config';
import { SamlLogin } from './saml/saml-login.service';
import { SsoFailure } from './sso-failure';
import { SsoSessionFacts, SsoSessions } from './sso-sessions.service';
import { SsoUsers } from './sso-users.service';

/** How long a started OIDC login waits for its callback (the binding cookie lives as long). */
export const OIDC_TTL_SECONDS = 10 * 60;

export type SsoKind = 'oidc' | 'saml';

/** What an attempt has learnt so far: a refusal is reported with the provider and `next` it knew. */
export interface SsoAttempt {
  kind: SsoKind;
  provider: string;
  next: string;
}

/** A login the provider vouched for: the user to log in, and the provider's session to record beside ours. */
export interface SsoLogin {
  user: User;
  providerSession: SsoSessionFacts;
}

interface PendingOidc {
  transaction: OidcTransaction;
  next: string;
}

interface PendingSaml {
  next: string;
}

/**
 * The two legs of a single sign-on (SPEC §7) for both protocols, between the HTTP routes and the
 * protocol services: the transaction state in the shared database (a login started on one node
 * completes on another; the store keeps each address's pending logins bounded by evicting its oldest,
 * never by refusing a start), provisioning, and the provider's
 * session recorded beside the new session (SPEC §17).
 */
@Injectable()
export class SsoService {
  constructor(
    private readonly oidc: OidcLogin,
    private readonly saml: SamlLogin,
    private readonly store: PendingStateService,
    private readonly users: SsoUsers,
    private readonly ssoSessions: SsoSessions,
    private readonly sessions: SessionsService,
  ) {}

  /** The redirect to the provider, and the browser-binding handle for the `sso_oidc` cookie (the database keeps only its MAC). */
  async startOidc(attempt: SsoAttempt, clientIp: string, trace: RequestTrace): Promise<{ url: string; handle: string }> {
    const provider = await this.oidc.provider(attempt.provider, trace);
    const { url, transaction } = await this.oidc.authorizationRequest(provider);
    const handle = randomBytes(32).toString('base64url');
    await this.store.add<PendingOidc>(`oidc:${this.store.digest(handle)}`, provider.key, { transaction, next: attempt.next }, OIDC_TTL_SECONDS, clientIp);
    return { url, handle };
  }

  /** The callback: only the browser holding the handle finds its transaction, once. */
  async completeOidc(attempt: SsoAttempt, handle: unknown, callbackQuery: URLSearchParams, trace: RequestTrace): Promise<SsoLogin> {
    const pending = typeof handle === 'string' && handle ? await this.store.take<PendingOidc>(`oidc:${this.store.digest(handle)}`) : null;
    if (!pending) throw new SsoFailure('no_transaction', 'no pending login for this browser');
    attempt.provider = pending.provider.slice('oidc:'.length);
    attempt.next = pending.data.next;
    const provider = await this.oidc.provider(attempt.provider, trace);
    const result = await this.oidc.complete(provider, pending.data.transaction, callbackQuery);
    const user = await this.users.resolve(result.identity, trace);
    return { user, providerSession: { provider: provider.key, subject: result.identity.uid, providerSession: result.sid, idToken: result.idToken } };
  }

  /** The AuthnRequest redirect; RelayState is a random handle to the pending login in the database. */
  async startSaml(attempt: SsoAttempt, clientIp: string, trace: RequestTrace): Promise<string> {
    const provider = await this.saml.provider(attempt.provider, trace);
    const handle = randomBytes(32).toString('base64url');
    await this.store.add<PendingSaml>(`relay:${this.store.digest(handle)}`, provider.key, { next: attempt.next }, SAML_REQUEST_TTL_SECONDS, clientIp);
    return this.saml.authorizeUrl(provider, handle);
  }

  /** The ACS: the RelayState names the pending login (and so the IdP); the Response is then verified fully. */
  async completeSaml(attempt: SsoAttempt, samlResponse: string, relayState: unknown, trace: RequestTrace): Promise<SsoLogin> {
    const pending = typeof relayState === 'string' && relayState ? await this.store.take<PendingSaml>(`relay:${this.store.digest(relayState)}`) : null;
    if (!pending) throw new SsoFailure('no_transaction', 'unknown RelayState');
    attempt.provider = pending.provider.slice('saml:'.length);
    attempt.next = pending.data.next;
    const provider = await this.saml.provider(attempt.provider, trace);
    const result = await this.saml.validateResponse(provider, samlResponse);
    const user = await this.users.resolve(result.identity, trace);
    return { user, providerSession: { provider: provider.key, subject: result.subject.nameID, providerSession: result.subject.sessionIndex, saml: result.subject } };
  }

  /**
   * Keeps the provider's session beside the session just created, for single logout. A session whose
   * record could not be written is ended at once: it could be neither passed on nor ended by the provider.
   */
  async recordSession(sessionId: number, login: SsoLogin, trace: RequestTrace): Promise<void> {
    try {
      await this.ssoSessions.record(sessionId, login.providerSession);
    } catch (err) {
      await this.sessions.end({ ids: [sessionId] }, 'logged_out', trace);
      throw err;
    }
  }
}
