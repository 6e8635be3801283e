import { Injectable } from '@nestjs/common';
import { NotFound } from '../common/errors';
import type { Account } from '../common/principal';
import { User } from './user.entity';
import { readsEverything } from './user-list';
import { UserVisibility } from './user-visibility';
import { UsersService } from './users.service';

/** User N as a caller may reach it: 404 when hidden, so ids do not reveal which users exist (SPEC §8, §21). */
@Injectable()
export class VisibleUser {
  constructor(
    private readonly users: UsersService,
    private readonly visibility: UserVisibility,
  ) {}

  async getOr404(viewer: Account, id: number): Promise<User> {
    if (!readsEverything(viewer) && viewer.id !== id && !(await this.users.isVisible(await this.visibility.of(viewer), id))) throw new NotFound();
    return this.users.getOr404(id);
  }
}
