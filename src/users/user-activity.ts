import { Injectable } from '@nestjs/common';
import { ActivityRecord, StreamOperation } from '../common/activity-record';
import { changesOf, fieldsOf, userSummary } from '../common/activity-changes';
import type { RequestTrace } from '../common/request-context';
import type { User } from './user.entity';

/** What the stream records of a user (SPEC §23): AWX's fields, and ours that have no role entries; the password hidden. */
const fields = (u: User) => ({
  username: u.username, first_name: u.firstName, last_name: u.lastName, email: u.email, is_superuser: u.isSuperuser,
  is_system_auditor: u.isSystemAuditor, is_active: u.isActive, account_expires: u.accountExpires, password: u.password,
});
const HIDDEN = ['password'];

/** A user's create, update and delete entries of the activity stream. */
@Injectable()
export class UserActivity {
  constructor(private readonly record: ActivityRecord) {}

  private entry(operation: StreamOperation, user: User, changes: Record<string, unknown>, trace: RequestTrace): void {
    this.record.record({ operation, object1: 'user', changes, objects: [{ kind: 'user', id: user.id, summary: userSummary(user) }], trace });
  }

  created(user: User, trace: RequestTrace): void {
    this.entry('create', user, { ...fieldsOf(fields(user), HIDDEN), id: user.id }, trace);
  }

  /** Only what changed; nothing when nothing did. */
  updated(before: User, after: User, trace: RequestTrace): void {
    const changes = changesOf(fields(before), fields(after), HIDDEN);
    if (Object.keys(changes).length) this.entry('update', after, changes, trace);
  }

  deleted(user: User, trace: RequestTrace): void {
    this.entry('delete', user, { ...fieldsOf(fields(user), HIDDEN), id: user.id }, trace);
  }
}
