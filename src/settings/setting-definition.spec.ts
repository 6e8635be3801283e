import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SettingInvalid, validators } from './setting-definition';

describe('setting validators', () => {
  it('limit accepts -1 and positive integers, refuses 0, fractions and strings', () => {
    assert.equal(validators.limit(-1), -1);
    assert.equal(validators.limit(3), 3);
    assert.throws(() => validators.limit(0), SettingInvalid);
    assert.throws(() => validators.limit(-2), SettingInvalid);
    assert.throws(() => validators.limit(1.5), SettingInvalid);
    assert.throws(() => validators.limit('3'), SettingInvalid);
  });

  it('origins normalise to scheme://host[:port] and refuse paths, queries and other schemes', () => {
    assert.deepEqual(validators.origins(['https://ui.example.com/', 'http://localhost:3000']), ['https://ui.example.com', 'http://localhost:3000']);
    for (const bad of [['ftp://x'], ['https://x/path'], ['https://x/?q=1'], ['nope'], 'https://x', [1]]) {
      assert.throws(() => validators.origins(bad), SettingInvalid, JSON.stringify(bad));
    }
  });

  it('urlOrBlank takes blank, local paths and http(s) URLs only', () => {
    assert.equal(validators.urlOrBlank(''), '');
    assert.equal(validators.urlOrBlank('/sso/login/oidc/?idp=corp'), '/sso/login/oidc/?idp=corp');
    assert.equal(validators.urlOrBlank('https://idp.example.com/'), 'https://idp.example.com/');
    assert.throws(() => validators.urlOrBlank('javascript:alert(1)'), SettingInvalid);
    assert.throws(() => validators.urlOrBlank('//evil.example.com'), SettingInvalid);
  });

  it('int enforces bounds with DRF messages', () => {
    assert.throws(() => validators.int(60)(59), /greater than or equal to 60/);
    assert.throws(() => validators.int(0, 10)(11), /less than or equal to 10/);
    assert.throws(() => validators.int(0)(true), /A valid integer is required/);
  });
});
