import { AuthMetrics } from '../common/auth-metrics';
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { PasswordHasher } from './password-hasher.service';

describe('PasswordHasher', () => {
  const hasher = new PasswordHasher(new AuthMetrics());
  before(() => hasher.onModuleInit());

  it('hashes with argon2id and verifies exactly', async () => {
    const hash = await hasher.hash('Correct horse ✓');
    assert.match(hash, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    assert.deepEqual(await hasher.verify('Correct horse ✓', hash), { ok: true });
    assert.equal((await hasher.verify('correct horse ✓', hash)).ok, false);
  });

  it('verifies Django pbkdf2_sha256 hashes and asks for an upgrade', async () => {
    const django = 'pbkdf2_sha256$260000$q1W2e3R4t5Y6$b1E+JRdLxlP9Z4g0E3MEqWB+0wCDWENtXmXPzmWBSPA=';
    const ok = await hasher.verify('AwxImported1', django);
    assert.equal(ok.ok, true);
    assert.match(ok.upgradedHash!, /^\$argon2id\$/);
    assert.deepEqual(await hasher.verify('AwxImported2', django), { ok: false });
  });

  it('never matches unusable or malformed hashes', async () => {
    for (const stored of ['!unusable', '', 'pbkdf2_sha256$x$y$z', 'md5$abc', '$argon2id$broken']) {
      assert.equal((await hasher.verify('anything', stored)).ok, false, stored);
    }
  });
});
