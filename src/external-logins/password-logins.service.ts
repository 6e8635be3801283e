import { Injectable, OnModuleInit } from '@nestjs/common';
import { BackendOutcome, PasswordAttempt } from '../users/login-methods';
import { ExternalLogins, PipelineRefusal } from './external-logins.service';
import { ExternalMethods } from './external-methods';
import { passwordMethodStrategy } from './password-method.strategy';
import { sourceTag } from '../maps/map-contract';

/** The log's reason for each refusal of the pipeline (the user sees a wrong password). */
export function refusalReason(refusal: PipelineRefusal): string {
  if (refusal.refused === 'maps') return `access_refused: ${refusal.refusedBy}`;
  if (refusal.refused === 'account') return refusal.why;
  return refusal.refused === 'name_held_by_other_method' ? 'local_account_name' : refusal.refused;
}

/**
 * Password methods on the pipeline (issue 55): each registered method's Passport strategy, made here, asks the
 * method to prove the attempt, then hands what it proved to the one pipeline. Every refusal answers like a
 * wrong password; the one password check (users/password-check.service.ts) counts it.
 */
@Injectable()
export class PasswordLogins implements OnModuleInit {
  private readonly strategies: object[] = [];

  constructor(
    private readonly methods: ExternalMethods,
    private readonly pipeline: ExternalLogins,
  ) {}

  onModuleInit(): void {
    for (const method of this.methods.all()) {
      if (method.prove) this.strategies.push(passwordMethodStrategy(method.method.account, (attempt) => this.login(method.method.account, attempt)));
    }
  }

  async login(account: string, { attempt, existing }: PasswordAttempt): Promise<BackendOutcome> {
    const proof = await this.methods.get(account)!.prove!(attempt, {});
    if ('refused' in proof) return { refused: proof.refused, source: proof.source };
    const result = await this.pipeline.login(proof.proven, existing, attempt.trace);
    return 'user' in result ? { user: result.user, source: proof.source, sourceName: sourceTag(proof.proven.source) } : { refused: refusalReason(result), source: proof.source };
  }
}
