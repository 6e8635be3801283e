import { z } from 'zod';
import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { PermissionDenied } from '../common/errors';
import { IdPipe } from '../common/id.pipe';
import { CurrentPrincipal, Principal } from '../common/principal';
import { CurrentTrace, RequestTrace } from '../common/request-context';
import { text, validateBody } from '../common/validation';
import type { User } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { LoginMethods } from '../users/login-methods';
import { FactorChangeProof } from './factor-change-proof';
import { MfaService } from './mfa.service';
import { SecurityKeys } from './security-keys.service';

const CODE_BODY = z.object({ code: text(64) });
/** The proof a factor change may need (FactorChangeProof): a code, or nothing from a fresh second step. */
const PROOF_BODY = z.object({ code: text(64).optional() });
const KEY_BODY = PROOF_BODY.extend({ name: text(100), credential: z.record(z.string(), z.unknown()) });

/**
 * `/api/v2/me/mfa/…` (SPEC §16): a user's own second factors, and a superuser's reset of anyone's. The
 * reset lives here rather than on UsersController: users/ sits below the features and knows no factor.
 */
@Controller('api/v2')
export class MfaController {
  constructor(
    private readonly mfa: MfaService,
    private readonly keys: SecurityKeys,
    private readonly users: UsersService,
    private readonly methods: LoginMethods,
    private readonly proof: FactorChangeProof,
  ) {}

  @Get('me/mfa')
  status(@CurrentPrincipal() principal: Principal) {
    return this.mfa.status(principal.user);
  }

  /** A user with a factor proves one first (SPEC §16): confirming the new app replaces the recovery codes. */
  @Post('me/mfa/totp')
  async startTotp(@CurrentPrincipal() principal: Principal, @Body() body: unknown, @CurrentTrace() trace: RequestTrace) {
    const user = this.mayEnrol(principal.user);
    const { code } = validateBody(PROOF_BODY, body);
    return this.mfa.startTotp(user, trace, await this.proof.demand(principal, code, trace));
  }

  @Post('me/mfa/totp/confirm')
  @HttpCode(200)
  async confirmTotp(@CurrentPrincipal() principal: Principal, @Body() body: unknown, @CurrentTrace() trace: RequestTrace) {
    const { code } = validateBody(CODE_BODY, body);
    return { recovery_codes: await this.mfa.confirmTotp(this.mayEnrol(principal.user), code, trace) };
  }

  @Delete('me/mfa/totp')
  @HttpCode(204)
  async removeTotp(@CurrentPrincipal() principal: Principal, @Body() body: unknown, @CurrentTrace() trace: RequestTrace) {
    const { code } = validateBody(CODE_BODY, body);
    await this.mfa.removeTotp(principal.user, code, trace);
  }

  @Post('me/mfa/recovery_codes')
  @HttpCode(200)
  async recoveryCodes(@CurrentPrincipal() principal: Principal, @Body() body: unknown, @CurrentTrace() trace: RequestTrace) {
    const { code } = validateBody(CODE_BODY, body);
    return { recovery_codes: await this.mfa.regenerateRecoveryCodes(principal.user, code, trace) };
  }

  @Post('me/mfa/security_keys/options')
  @HttpCode(200)
  keyOptions(@CurrentPrincipal() principal: Principal) {
    return this.keys.registrationOptions(this.mayEnrol(principal.user));
  }

  /** 201 with the key; a first factor's response also carries the ten recovery codes, shown this once. */
  @Post('me/mfa/security_keys')
  async addKey(@CurrentPrincipal() principal: Principal, @Body() body: unknown, @CurrentTrace() trace: RequestTrace) {
    const user = this.mayEnrol(principal.user);
    const { name, credential, code } = validateBody(KEY_BODY, body);
    const key = await this.keys.register(user, name, credential, trace, await this.proof.demand(principal, code, trace));
    const codes = await this.mfa.ensureRecoveryCodes(principal.user);
    return { id: key.id, name: key.name, created: key.created.toISOString(), last_used: null, ...(codes ? { recovery_codes: codes } : {}) };
  }

  /** Proof first (SPEC §16): deleting a user's only key would switch their second step off. */
  @Delete('me/mfa/security_keys/:id')
  @HttpCode(204)
  async removeKey(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @Body() body: unknown, @CurrentTrace() trace: RequestTrace) {
    const { code } = validateBody(PROOF_BODY, body);
    await this.keys.remove(principal.user, id, trace, await this.proof.demand(principal, code, trace));
  }

  /** Every factor of user N, for a user locked out of them (superusers only). */
  @Delete('users/:id/mfa')
  @HttpCode(204)
  async reset(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @CurrentTrace() trace: RequestTrace) {
    if (!principal.user.isSuperuser) throw new PermissionDenied();
    await this.mfa.resetAll(await this.users.getOr404(id), `api:${principal.user.username}`, trace);
  }

  /** Users whose login method proves a password here add factors; SSO users verify at their identity provider, service accounts never log in. */
  private mayEnrol(user: User): User {
    if (!this.methods.of(user).provesPassword) {
      throw new PermissionDenied('Two-step verification is for accounts that log in with a password here; your identity provider verifies you.');
    }
    return user;
  }
}
