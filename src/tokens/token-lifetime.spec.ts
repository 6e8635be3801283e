import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cappedLifetime, longestRequestable, requestedLifetimeRefusal } from './token-lifetime';
import { givenLifetime } from './token-rotation.service';

describe('the token lifetime policy (SPEC §15)', () => {
  it('caps a lifetime by TOKEN_MAX_LIFETIME_SECONDS, 0 meaning no cap', () => {
    assert.equal(cappedLifetime(31536000000, 0), 31536000000);
    assert.equal(cappedLifetime(31536000000, 3600), 3600);
    assert.equal(cappedLifetime(600, 3600), 600);
    assert.equal(longestRequestable(0), 31536000000);
    assert.equal(longestRequestable(86400), 86400);
  });

  it('takes a requested lifetime of whole seconds from 60 to the cap, in DRF words otherwise', () => {
    assert.equal(requestedLifetimeRefusal(60, 0), null);
    assert.equal(requestedLifetimeRefusal(3600, 3600), null);
    assert.equal(requestedLifetimeRefusal(31536000000, 0), null);
    assert.equal(requestedLifetimeRefusal(59, 0), 'Ensure this value is greater than or equal to 60.');
    assert.equal(requestedLifetimeRefusal(3601, 3600), 'Ensure this value is less than or equal to 3600.');
    assert.equal(requestedLifetimeRefusal(31536000001, 0), 'Ensure this value is less than or equal to 31536000000.');
    for (const bad of [60.5, '3600', null, Number.NaN, Infinity]) assert.equal(requestedLifetimeRefusal(bad, 0), 'A valid integer is required.');
  });

  it('gives a rotated token the lifetime its predecessor was issued with', () => {
    const created = new Date('2026-01-01T00:00:00.000Z');
    assert.equal(givenLifetime({ created, expires: new Date(created.getTime() + 7200_000) }), 7200);
    assert.equal(givenLifetime({ created, expires: new Date(created.getTime() + 31536000000_000) }), 31536000000);
  });
});
