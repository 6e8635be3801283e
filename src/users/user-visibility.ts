import { Injectable } from '@nestjs/common';
import type { Account } from '../common/principal';
import { readsEverything } from './user-list';

/** Which users a caller sees: every one, or those an SQL condition over the users list's alias `u` keeps. */
export type VisibleUsers = { all: true } | { all: false; where: string; params: Record<string, unknown> };

type Rule = (viewer: Account) => Promise<VisibleUsers>;

/**
 * Who sees which users (SPEC §8, §21). Superusers and system auditors see everyone; anyone else sees
 * themselves and whatever the organizations module's rule adds (the members of the organizations they can
 * read; everyone for an organization's admin or auditor while ORG_ADMINS_CAN_SEE_ALL_USERS). That module
 * registers the rule at start-up, so `users` asks it without importing it, as it asks `UserIdentities`.
 */
@Injectable()
export class UserVisibility {
  private rule?: Rule;

  register(rule: Rule): void {
    this.rule = rule;
  }

  async of(viewer: Account): Promise<VisibleUsers> {
    if (readsEverything(viewer)) return { all: true };
    if (this.rule) return this.rule(viewer);
    return { all: false, where: 'u.id = :visibleSelf', params: { visibleSelf: viewer.id } };
  }
}
