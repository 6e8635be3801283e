import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Provisioning, ProvisioningInput } from './provisioning';
import type { User } from './user.entity';
import type { UsersService } from './users.service';

const provisioning = new Provisioning({} as UsersService);
const input = (over: Partial<ProvisioningInput> = {}): ProvisioningInput => ({ account: 'directory', source: { directory: 'default' }, event: 'test', fields: {}, flags: {}, ...over });
const lara = { username: 'lara', firstName: 'Lara', lastName: 'Croft', email: 'lara@example.org', isSuperuser: true, isSystemAuditor: false, ldapDn: 'uid=lara,dc=example' } as User;

describe('the provisioning step (issue 39)', () => {
  it('plans a first login with what the method sent, values cut to the API limits', () => {
    const plan = provisioning.plan(null, input({ fields: { first_name: 'x'.repeat(200), email: 'a@b.c' }, flags: { is_superuser: false } }));
    assert.deepEqual(plan, { create: true, changes: { first_name: 'x'.repeat(150), email: 'a@b.c', is_superuser: false } });
  });

  it('plans only the changes of a later login; what the method did not send stays as it is', () => {
    const plan = provisioning.plan(lara, input({ fields: { first_name: 'Lara', email: 'new@example.org', last_name: undefined }, flags: { is_superuser: false }, owned: { ldap_dn: 'uid=lara,dc=example' } }));
    assert.deepEqual(plan, { create: false, changes: { email: 'new@example.org', is_superuser: false } });
    assert.deepEqual(provisioning.plan(lara, input()).changes, {});
  });

  it('says what a login would do, in words the explainers print', () => {
    const update = provisioning.plan(lara, input({ flags: { is_superuser: false }, fields: { email: 'new@example.org' } }));
    assert.equal(provisioning.describe(lara, update, 'lara', 'directory'), 'It would update "lara": email "lara@example.org" → "new@example.org", is_superuser cleared.');
    assert.equal(provisioning.describe(lara, provisioning.plan(lara, input()), 'lara', 'directory'), '"lara" is already in step with its identity source.');
    const create = provisioning.plan(null, input({ flags: { is_system_auditor: true } }));
    assert.equal(provisioning.describe(null, create, 'neo', 'directory'), 'It would create the user "neo" (external_account "directory"; is_system_auditor set).');
  });
});
