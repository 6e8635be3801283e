import { Injectable } from '@nestjs/common';
import { CommandRunner } from './command-layer';
import { SessionSweeper } from '../sessions/session-sweeper.service';
import { SessionsService } from '../sessions/sessions.service';
import { UsersService } from '../users/users.service';
import { userDoesNotExist } from './command-error';
import { NO_REQUEST } from '../common/request-context';

@Injectable()
export class ExpireSessionsCommand extends CommandRunner {
  constructor(
    private readonly sessions: SessionsService,
    private readonly users: UsersService,
    private readonly sweeper: SessionSweeper,
  ) {
    super();
  }

  async run(_: string[], options: { user?: string }): Promise<void> {
    let count: number;
    if (options.user !== undefined) {
      const user = await this.users.findByUsername(options.user);
      if (!user) throw userDoesNotExist(options.user);
      // The cut-off ends them at once on every node; the command then waits for the rows to be stamped.
      await this.sessions.endAllOf(user.id, 'revoked_by_admin', NO_REQUEST);
      count = await this.sweeper.cleanupRevoked(Infinity);
    } else {
      count = await this.sessions.endEveryone('revoked_by_admin');
    }
    console.log(`Expired ${count} session(s)${options.user ? ` of user '${options.user}'` : ''}.`);
  }
}

@Injectable()
export class CleanupSessionsCommand extends CommandRunner {
  constructor(private readonly sweeper: SessionSweeper) {
    super();
  }

  async run(): Promise<void> {
    let lastPrinted = 0;
    const result = await this.sweeper.sweepAll((progress) => {
      const done = progress.expired + progress.deleted;
      if (done - lastPrinted >= 5000) {
        lastPrinted = done;
        process.stderr.write(`... ${progress.expired} expired, ${progress.deleted} deleted\n`);
      }
    });
    console.log(`Expired sessions marked: ${result.expired}; ended sessions deleted: ${result.deleted}`);
  }
}
