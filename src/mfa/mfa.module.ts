import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PendingStateModule } from '../pending-state/pending-state.module';
import { SettingsModule } from '../settings/settings.module';
import { UsersModule } from '../users/users.module';
import { CodeThrottle } from './code-throttle';
import { FactorChangeProof } from './factor-change-proof';
import { MfaController } from './mfa.controller';
import { MfaRepository } from './mfa.repository';
import { MfaService } from './mfa.service';
import { PendingLogins } from './pending-logins.service';
import { RecoveryCode } from './recovery-code.entity';
import { SecurityKey } from './security-key.entity';
import { SecurityKeys } from './security-keys.service';
import { TotpFactor } from './totp-factor.entity';

/** Two-step verification (SPEC §16): the factors, their API, and the logins waiting for a second step. */
@Module({
  imports: [TypeOrmModule.forFeature([TotpFactor, RecoveryCode, SecurityKey]), PendingStateModule, UsersModule, SettingsModule],
  controllers: [MfaController],
  providers: [MfaRepository, MfaService, SecurityKeys, PendingLogins, CodeThrottle, FactorChangeProof],
  exports: [MfaService, SecurityKeys, PendingLogins, CodeThrottle],
})
export class MfaModule {}
