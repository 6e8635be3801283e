import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import { PermissionDenied } from '../common/errors';
import type { Principal } from '../common/principal';
import type { RequestTrace } from '../common/request-context';
import { MfaService } from './mfa.service';

/** How long after a login's second step its session may change factors without a code (SPEC §16). */
export const FRESH_SECOND_STEP_SECONDS = 300;

export const PROOF_NEEDED =
  'Changing second factors needs proof: send "code" with a current code of your authenticator app or an unused recovery code, ' +
  'or log in again with your second step (it counts for five minutes).';

/** Spends the proof when a change is about to be made (a no-op when none is owed). */
export type SpendProof = () => Promise<void>;

/**
 * Who must prove a factor to change factors (SPEC §16, issue 40: a stolen write token or session could
 * add the thief's key, or delete the only key and switch the second step off). A user with a confirmed
 * factor proves one by `code` in the body (a current authenticator code or an unused recovery code, spent
 * once, counted in the user's code throttle) or by a session whose login completed the second step less
 * than five minutes ago; a bearer token only by the code. A user with no factor yet adds the first freely.
 */
@Injectable()
export class FactorChangeProof {
  constructor(
    private readonly mfa: MfaService,
    private readonly clock: Clock,
  ) {}

  /**
   * At once: 403 when proof is owed and no code came (nothing is touched). Otherwise the spender, which
   * the change calls right before it writes, after its own checks: a code is spent only on a change that
   * would be made (400 for a wrong one, 429 past the throttle, and then nothing changes).
   */
  async demand(principal: Principal, code: string | undefined, trace: RequestTrace): Promise<SpendProof> {
    const { user } = principal;
    // Read afresh, not from the principal's copy of the flag, which a change racing this request may have outdated.
    if (this.freshSecondStep(principal) || !(await this.mfa.hasFactor(user.id))) return async () => {};
    if (code === undefined) throw new PermissionDenied(PROOF_NEEDED);
    return async () => {
      await this.mfa.proveCode(user, code, trace, 'proof');
    };
  }

  private freshSecondStep(principal: Principal): boolean {
    if (principal.method !== 'session' || !principal.secondStepAt) return false;
    return this.clock.now().getTime() - principal.secondStepAt.getTime() < FRESH_SECOND_STEP_SECONDS * 1000;
  }
}
