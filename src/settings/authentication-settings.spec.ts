import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { z } from 'zod';
import { FieldErrors } from '../common/errors';
import { integer, validateValue } from '../common/validation';
import { AUTHENTICATION_SETTINGS, origins, sessionLimit, urlOrBlank } from './authentication-settings';

const parse = (schema: z.ZodType, value: unknown) => validateValue(schema, value, 'KEY');
const message = (schema: z.ZodType, value: unknown): string => {
  try {
    parse(schema, value);
  } catch (e) {
    assert.ok(e instanceof FieldErrors);
    return e.errors.KEY[0];
  }
  assert.fail(`${JSON.stringify(value)} was accepted`);
};

describe('authentication setting schemas', () => {
  it('limit accepts -1 and positive integers, refuses 0, fractions and strings', () => {
    assert.equal(parse(sessionLimit, -1), -1);
    assert.equal(parse(sessionLimit, 3), 3);
    assert.equal(message(sessionLimit, 0), 'Use -1 for no limit, or a value of at least 1.');
    assert.equal(message(sessionLimit, -2), 'Ensure this value is greater than or equal to -1.');
    assert.equal(message(sessionLimit, 1.5), 'A valid integer is required.');
    assert.equal(message(sessionLimit, '3'), 'A valid integer is required.');
  });

  it('origins normalise to scheme://host[:port] and refuse paths, queries and other schemes', () => {
    assert.deepEqual(parse(origins, ['https://ui.example.com/', 'http://localhost:3000']), ['https://ui.example.com', 'http://localhost:3000']);
    for (const bad of [['ftp://x'], ['https://x/path'], ['https://x/?q=1'], ['nope']]) {
      assert.equal(message(origins, bad), `"${bad[0]}" is not a valid origin (scheme://host[:port]).`);
    }
    assert.equal(message(origins, 'https://x'), 'Expected a list of items but got type "string".');
    assert.equal(message(origins, [1]), 'Not a valid string.');
  });

  it('urlOrBlank takes blank, local paths and http(s) URLs only', () => {
    assert.equal(parse(urlOrBlank, ''), '');
    assert.equal(parse(urlOrBlank, ' /sso/login/oidc/?idp=corp '), '/sso/login/oidc/?idp=corp');
    assert.equal(parse(urlOrBlank, 'https://idp.example.com/'), 'https://idp.example.com/');
    assert.equal(message(urlOrBlank, 'javascript:alert(1)'), 'Enter a valid URL.');
    assert.equal(message(urlOrBlank, '//evil.example.com'), 'Enter a valid URL.');
  });

  it('int enforces bounds with DRF messages', () => {
    assert.equal(message(integer(60), 59), 'Ensure this value is greater than or equal to 60.');
    assert.equal(message(integer(0, 10), 11), 'Ensure this value is less than or equal to 10.');
    assert.equal(message(integer(0, 10), 1e20), 'Ensure this value is less than or equal to 10.');
    assert.equal(message(integer(0), true), 'A valid integer is required.');
  });

  it('OAUTH2_PROVIDER fills defaults, names the bad lifetime and refuses unknown keys first', () => {
    const schema = AUTHENTICATION_SETTINGS.find((d) => d.key === 'OAUTH2_PROVIDER')!.schema;
    assert.deepEqual(parse(schema, { ACCESS_TOKEN_EXPIRE_SECONDS: 60 }), {
      ACCESS_TOKEN_EXPIRE_SECONDS: 60,
      REFRESH_TOKEN_EXPIRE_SECONDS: 2628000,
      AUTHORIZATION_CODE_EXPIRE_SECONDS: 600,
    });
    assert.equal(message(schema, { REFRESH_TOKEN_EXPIRE_SECONDS: 31536000001 }), 'REFRESH_TOKEN_EXPIRE_SECONDS: Ensure this value is less than or equal to 31536000000.');
    assert.equal(message(schema, { FOO: 1, ACCESS_TOKEN_EXPIRE_SECONDS: 0 }), 'Invalid key names: FOO');
    assert.equal(message(schema, []), 'Expected a dictionary of items.');
  });
});
