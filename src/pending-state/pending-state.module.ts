import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PendingState } from './pending-state.entity';
import { PendingStateRepository } from './pending-state.repository';
import { PendingStateService } from './pending-state.service';

/** Short-lived login state every node shares: single sign-on transactions and logins waiting for a second step. */
@Module({
  imports: [TypeOrmModule.forFeature([PendingState])],
  providers: [PendingStateRepository, PendingStateService],
  exports: [PendingStateService, PendingStateRepository],
})
export class PendingStateModule {}
