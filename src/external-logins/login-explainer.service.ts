import { Injectable } from '@nestjs/common';
import { FieldErrors, NotFound } from '../common/errors';
import { describeOutcome, OutcomeView } from '../maps/outcome-view';
import { LoginMethods, PasswordBackendUnavailable } from '../users/login-methods';
import type { User } from '../users/user.entity';
import { normalizeUsername } from '../users/usernames';
import { UsersService } from '../users/users.service';
import type { ExternalMethod } from './external-method';
import { ExternalLogins, LoginDecision } from './external-logins.service';
import { ExternalMethods } from './external-methods';

/** What every explainer answers (SPEC §14, §20), with the method's own fields beside (LDAP's `dn`, RADIUS's `reply`). */
export interface LoginExplanation extends Record<string, unknown> {
  would_login: boolean;
  flags: { is_superuser: boolean; is_system_auditor: boolean };
  /** SPEC §21: the maps' verdict on the login the method proved (the dry run's OUTCOME); null when it proved none. */
  maps: OutcomeView | null;
  steps: string[];
}

/**
 * Explains a password method's login without performing it (issue 55): the method-neutral half (a name held
 * by another method, the holder, the methods asked first, the holder inactive, refused by the maps, the
 * changes) is written once, here, around the method's own proof, and is the pipeline's `decide`: the same
 * run as a login, writing nothing. It logs nobody in, creates or changes no user, never shows a password.
 */
@Injectable()
export class LoginExplainer {
  constructor(
    private readonly methods: ExternalMethods,
    private readonly logins: LoginMethods,
    private readonly pipeline: ExternalLogins,
    private readonly users: UsersService,
  ) {}

  /** The method explained at `/api/v2/settings/<category>/test/`, or 404. */
  atCategory(category: string): ExternalMethod {
    const method = this.methods.explainedAt(category);
    if (!method) throw new NotFound();
    return method;
  }

  async explain(method: ExternalMethod, typed: string, password: string, server?: string): Promise<LoginExplanation> {
    const { account, label } = method.method;
    const servers = method.explainer!.servers;
    if (server !== undefined && !servers?.includes(server)) {
      throw new FieldErrors({ server: [servers ? `"${server.slice(0, 20)}" is not one of ${servers.join(', ')}.` : `${label} has no servers to choose from.`] });
    }
    const username = normalizeUsername(typed); // as every password path reads it
    const steps: string[] = [];
    const holder = await this.users.findByUsernameIgnoringCase(username);
    const unproven = (extra: Record<string, unknown> = method.explainer!.unproven, target: User | null = holder): LoginExplanation => ({
      would_login: false,
      ...extra,
      flags: { is_superuser: !!target?.isSuperuser, is_system_auditor: !!target?.isSystemAuditor },
      maps: null,
      steps,
    });
    if (holder && holder.externalAccount !== account) {
      steps.push(`The name belongs to the ${this.logins.of(holder).label.toLowerCase()} user "${holder.username}": a login checks that account and never asks ${label} (no takeover).`);
      return unproven();
    }
    const note = holder && method.holderNote ? `, ${method.holderNote(holder)}` : '';
    steps.push(holder ? `"${holder.username}" is a user of ${label} here (id ${holder.id}${note}).` : `No user named "${username.slice(0, 160)}" exists here yet.`);
    if (!holder) this.methodsAskedFirst(account, label, steps);
    let proof;
    try {
      proof = await method.prove!({ username, password, clientIp: '', trace: {} as never }, { server, note: (line) => steps.push(line) });
    } catch (err) {
      if (!(err instanceof PasswordBackendUnavailable)) throw err;
      steps.push(`${label} (${err.source}) is unavailable (${err.reason}): a login would answer 503 "${err.detail}" (not counted as a failure).`);
      return unproven();
    }
    if ('refused' in proof) {
      steps.push(`Verdict: refused (${proof.refused}); the user would see the wrong-password answer.`);
      return unproven(proof.explained);
    }
    const decision = await this.pipeline.decide(proof.proven, holder);
    if (decision.holder && decision.holder.id !== holder?.id) {
      // The entry's or link's holder is another account than the name's: one account per person.
      steps.push(`The login would be the ${label} user "${decision.holder.username}" (id ${decision.holder.id}), who holds this identity.`);
    }
    return this.verdict(proof.explained ?? {}, decision, steps, () => this.pipeline.describeChanges(proof.proven, decision));
  }

  private verdict(extra: Record<string, unknown>, decision: LoginDecision, steps: string[], changes: () => string): LoginExplanation {
    const { holder, refusal, outcome } = decision;
    for (const flag of ['is_superuser', 'is_system_auditor'] as const) {
      const verdict = outcome?.allowed ? outcome.flags[flag] : null;
      if (verdict?.decidedBy) steps.push(`${flag}: ${verdict.after ? 'set' : 'cleared'}, by ${verdict.decidedBy}.`);
    }
    const flags = {
      is_superuser: outcome?.allowed ? outcome.flags.is_superuser.after : !!holder?.isSuperuser,
      is_system_auditor: outcome?.allowed ? outcome.flags.is_system_auditor.after : !!holder?.isSystemAuditor,
    };
    const answer = { ...extra, flags, maps: outcome ? describeOutcome(outcome) : null, steps };
    if (refusal?.refused === 'maps') {
      steps.push(`Verdict: refused by ${refusal.refusedBy} (an allow decision of the maps); the user would see the wrong-password answer${holder ? ', and their sessions and tokens would end' : ''}.`);
      return { would_login: false, ...answer };
    }
    if (refusal?.refused === 'name_held_by_other_method') {
      steps.push(`Verdict: refused: the name is held by the ${this.logins.of(refusal.holder).label.toLowerCase()} user "${refusal.holder.username}" (no takeover).`);
      return { would_login: false, ...answer };
    }
    if (refusal?.refused === 'account') {
      steps.push(`Verdict: refused: the user "${refusal.holder.username}" is inactive here.`);
      return { would_login: false, ...answer };
    }
    steps.push(`Verdict: the login would succeed. ${changes()}`);
    return { would_login: true, ...answer };
  }

  /** The password methods a login asks before this one: the first that knows a name decides. */
  private methodsAskedFirst(account: string, label: string, steps: string[]): void {
    const before: string[] = [];
    for (const method of this.logins.configured()) {
      if (method.account === account) break;
      before.push(method.label);
    }
    if (before.length) steps.push(`A login asks ${before.join(', then ')} first: if it knows the name, that decides and ${label} is never asked (this explainer does not ask it).`);
  }
}
