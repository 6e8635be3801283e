import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { Clock } from '../common/clock';
import { RequestTrace } from '../common/request-context';
import { SecretBox, sha256Hex } from '../common/secret-box';
import { SessionsService } from '../sessions/sessions.service';
import type { SamlSubject } from './saml/saml-login.service';
import { SsoSessionsRepository } from './sso-sessions.repository';

/** Sessions ended per statement when a provider's logout names many (a subject logged in on many browsers). */
const END_PAGE = 500;
const COLUMN = 255;

/** A provider's session as a login recorded it, and what a logout hands back to that provider. */
export interface SsoSessionFacts {
  /** "oidc:<name>" or "saml:<name>". */
  provider: string;
  /** OIDC `sub`, SAML NameID. */
  subject: string;
  /** OIDC `sid`, SAML SessionIndex. */
  providerSession?: string;
  /** OIDC: the ID token (`id_token_hint`), a bearer-like secret, hence encrypted at rest. */
  idToken?: string;
  /** SAML: the NameID with its format and qualifiers and the SessionIndex, as a LogoutRequest names them. */
  saml?: SamlSubject;
}

/** A value as the indexed columns keep it: as sent, or its hash when longer than the column. */
function fit(value: string): string {
  return value.length <= COLUMN ? value : `sha256:${sha256Hex(value)}`;
}

/**
 * The identity provider's session behind each single sign-on session (SPEC §17): recorded at login,
 * taken by the local logout (which passes the logout on to the provider), and matched by the provider's
 * own logout, which ends exactly those sessions with `idp_logout`, never the user's other sessions.
 */
@Injectable()
export class SsoSessions {
  private readonly box: SecretBox;

  constructor(
    private readonly repository: SsoSessionsRepository,
    private readonly sessions: SessionsService,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.box = new SecretBox(config.secretKey);
  }

  async record(sessionId: number, facts: SsoSessionFacts): Promise<void> {
    await this.repository.insert({
      sessionId,
      provider: facts.provider,
      subject: fit(facts.subject),
      providerSession: facts.providerSession ? fit(facts.providerSession) : null,
      data: this.box.encrypt(JSON.stringify(facts)),
      created: this.clock.now(),
    });
  }

  /** The record of a session the local logout just ended (then gone: the provider is told once). */
  async take(sessionId: number): Promise<SsoSessionFacts | null> {
    const row = await this.repository.take(sessionId);
    return row ? (JSON.parse(this.box.decrypt(row.data)) as SsoSessionFacts) : null;
  }

  /**
   * Ends the live sessions of a provider's session (`providerSession`, with `subject` when the provider
   * names both) or of a subject (all its sessions from that provider) with reason `idp_logout`; returns
   * how many it ended.
   */
  async endMatching(provider: string, match: { subject?: string; providerSession?: string }, trace: RequestTrace): Promise<number> {
    const where = {
      provider,
      subject: match.subject !== undefined ? fit(match.subject) : undefined,
      providerSession: match.providerSession !== undefined ? fit(match.providerSession) : undefined,
    };
    if (where.subject === undefined && where.providerSession === undefined) return 0;
    let ended = 0;
    let after = 0;
    for (;;) {
      const ids = await this.repository.sessionIds(where, after, END_PAGE);
      if (ids.length) ended += await this.sessions.end({ ids }, 'idp_logout', trace);
      if (ids.length < END_PAGE) break;
      after = ids[ids.length - 1];
    }
    return ended;
  }
}
