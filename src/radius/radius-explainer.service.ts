import { Injectable } from '@nestjs/common';
import { LoginMethods } from '../users/login-methods';
import { Provisioning } from '../users/provisioning';
import { MapsService } from '../maps/maps.service';
import { OutcomeView, describeOutcome } from '../maps/outcome-view';
import type { User } from '../users/user.entity';
import { normalizeUsername } from '../users/usernames';
import { UsersService } from '../users/users.service';
import { Answered, RadiusUnanswered } from './radius-exchange';
import { flagStep, flagVerdicts } from './radius-flags';
import { RADIUS_ACCOUNT, RADIUS_UNAVAILABLE, radiusAccess, RadiusLogins, unsendable } from './radius-logins.service';
import { ACCESS_ACCEPT } from './radius-packets';

/** What `radius_test` and `POST /api/v2/settings/radius/test/` answer (SPEC §20). */
export interface RadiusExplanation {
  would_login: boolean;
  reply: string | null;
  attributes: Record<string, string[]>;
  flags: { is_superuser: boolean; is_system_auditor: boolean };
  /** SPEC §21: the maps' verdict on an Access-Accept (the dry run's OUTCOME); null when no Accept came. */
  maps: OutcomeView | null;
  steps: string[];
}

const UNSENT: Record<string, string> = {
  invalid_username: 'is not a valid username (letters, digits and @ . + - _, at most 150)',
  username_too_long: 'is longer than a User-Name can be (253 octets)',
  empty_password: 'comes with an empty password',
  password_too_long: 'comes with a password over 128 octets (RFC 2865 §5.2)',
};

/**
 * Explains a RADIUS login without performing it (SPEC §20): the name rules a login applies, the very
 * Access-Request it would send and what came back, each flag and the attribute behind it, and what would
 * happen to the user. It logs nobody in and creates or changes no user; it never shows the secret or the
 * password (the steps name the server, the reply and the attributes only).
 */
@Injectable()
export class RadiusExplainer {
  constructor(
    private readonly logins: RadiusLogins,
    private readonly users: UsersService,
    private readonly provisioning: Provisioning,
    private readonly methods: LoginMethods,
    private readonly maps: MapsService,
  ) {}

  async explain(typed: string, password: string): Promise<RadiusExplanation> {
    const username = normalizeUsername(typed); // as every password path reads it
    const steps: string[] = [];
    const holder = username ? await this.users.findByUsernameIgnoringCase(username) : null;
    const refused = (answered?: Answered): RadiusExplanation => ({
      would_login: false,
      reply: answered?.reply.code ?? null,
      attributes: answered?.reply.attributes ?? {},
      flags: { is_superuser: !!holder?.isSuperuser, is_system_auditor: !!holder?.isSystemAuditor },
      maps: null,
      steps,
    });
    if (holder && holder.externalAccount !== RADIUS_ACCOUNT) {
      steps.push(`The name belongs to the ${this.methods.of(holder).label.toLowerCase()} user "${holder.username}": a login checks that account and never asks RADIUS (no takeover).`);
      return refused();
    }
    const config = this.logins.config();
    steps.push(holder ? `"${holder.username}" is a RADIUS user here (id ${holder.id}).` : `No user named "${username.slice(0, 160)}" exists here yet.`);
    if (!config.server) {
      steps.push('RADIUS is off (RADIUS_SERVER is ""): a login of a RADIUS user is refused like a wrong password, and other names are never sent.');
      return refused();
    }
    const unsent = unsendable(username, password);
    if (unsent) {
      steps.push(`The login ${UNSENT[unsent]}: refused like a wrong password, without a request.`);
      return refused();
    }
    if (!holder) this.namesAskedFirst(steps);
    steps.push(
      `An Access-Request for "${username}" to ${config.server}:${config.port}: Message-Authenticator first, NAS-Identifier "${config.nasIdentifier}"; ` +
        `${config.timeoutMs / 1000} s for each transmission, at most ${config.retries} retransmissions.`,
    );
    let answered: Answered;
    try {
      answered = await this.logins.ask(config, username, password, (line) => steps.push(line));
    } catch (err) {
      if (!(err instanceof RadiusUnanswered)) throw err;
      steps.push(`No valid reply: ${err.why}. A login would answer 503 "${RADIUS_UNAVAILABLE}" (not counted as a failure).`);
      return refused();
    }
    const { reply } = answered;
    steps.push(`Reply: ${reply.code} from ${config.server}:${config.port}, its Response Authenticator and Message-Authenticator verified.`);
    if (reply.code !== ACCESS_ACCEPT) {
      const why = reply.code === 'Access-Challenge' ? 'the server wants another round, and the service has no challenge page' : 'not an Access-Accept';
      steps.push(`Verdict: refused (${why}); the user would see the wrong-password answer.`);
      return refused(answered);
    }
    const verdicts = flagVerdicts(config.flags, reply.attributes);
    for (const verdict of verdicts) steps.push(flagStep(verdict));
    const outcome = await this.maps.preview(holder, radiusAccess(username, reply));
    const flags = { is_superuser: outcome.flags.is_superuser.after, is_system_auditor: outcome.flags.is_system_auditor.after };
    const answer = { reply: reply.code, attributes: reply.attributes, flags, maps: describeOutcome(outcome), steps };
    if (!outcome.allowed) {
      steps.push(`Verdict: refused by ${outcome.refusedBy} (an allow decision of the maps); the user would see the wrong-password answer${holder ? ', and their sessions and tokens would end' : ''}.`);
      return { would_login: false, ...answer };
    }
    if (holder && !holder.isActive) {
      steps.push(`Verdict: refused: the user "${holder.username}" is inactive here.`);
      return { would_login: false, ...answer };
    }
    steps.push(`Verdict: the login would succeed. ${this.changes(holder, username, this.logins.provisioningInput(config, reply))}`);
    return { would_login: true, ...answer };
  }

  /** The password methods a login asks before RADIUS (an LDAP directory): the first that knows a name decides. */
  private namesAskedFirst(steps: string[]): void {
    const before: string[] = [];
    for (const method of this.methods.configured()) {
      if (method.account === RADIUS_ACCOUNT) break;
      before.push(method.label);
    }
    if (before.length) {
      steps.push(`A login asks ${before.join(', then ')} first: if it knows the name, that decides and RADIUS is never asked (this explainer does not ask it).`);
    }
  }

  private changes(holder: User | null, username: string, input: ReturnType<RadiusLogins['provisioningInput']>): string {
    return this.provisioning.describe(holder, this.provisioning.plan(holder, input), username, RADIUS_ACCOUNT);
  }
}
