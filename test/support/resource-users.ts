import { enableScopedPrincipals } from './scoped-principal';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './test-app';

/** The cast of the ownership rules: an owner, another user, a system auditor and the superuser. */
export const CALLERS = {
  admin: basic('admin', ADMIN_PASSWORD),
  alice: basic('alice', 'Alice-pass-1'),
  bob: basic('bob', 'Bob-pass-1'),
  auditor: basic('audrey', 'Audrey-pass-1'),
};

/** A test app with those users and scoped principals (`scoped('read', aliceId)`) enabled. */
export async function startWithResourceUsers(): Promise<{ t: TestApp; aliceId: number }> {
  const t = await startTestApp();
  const aliceId = await t.createUser('alice', 'Alice-pass-1');
  await t.createUser('bob', 'Bob-pass-1');
  await t.createUser('audrey', 'Audrey-pass-1', { is_system_auditor: true });
  enableScopedPrincipals(t);
  return { t, aliceId };
}
