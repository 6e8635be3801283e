import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './test-app';

/** The cast of the ownership rules: an owner, another user, a system auditor and the superuser. */
export const CALLERS = {
  admin: basic('admin', ADMIN_PASSWORD),
  alice: basic('alice', 'Alice-pass-1'),
  bob: basic('bob', 'Bob-pass-1'),
  auditor: basic('audrey', 'Audrey-pass-1'),
};

export interface ResourceApp {
  t: TestApp;
  aliceId: number;
  /** Alice's personal access tokens, as `Authorization` values: scopes apply through the principal. */
  aliceRead: string;
  aliceWrite: string;
}

/** A test app with those users, and a read and a write token of Alice's made through the tokens API. */
export async function startWithResourceUsers(): Promise<ResourceApp> {
  const t = await startTestApp();
  const aliceId = await t.createUser('alice', 'Alice-pass-1');
  await t.createUser('bob', 'Bob-pass-1');
  await t.createUser('audrey', 'Audrey-pass-1', { is_system_auditor: true });
  const token = async (scope: string) => {
    const res = await t.http().post('/api/v2/tokens/').set('Authorization', CALLERS.alice).send({ scope }).expect(201);
    return `Bearer ${res.body.token}`;
  };
  return { t, aliceId, aliceRead: await token('read'), aliceWrite: await token('write') };
}
