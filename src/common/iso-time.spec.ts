import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isoTime } from './iso-time';

describe('isoTime', () => {
  it('is toISOString for every instant, kept or not, past the bound too', () => {
    const start = Date.UTC(1969, 11, 31, 23, 59, 59, 998);
    for (let i = 0; i < 10_000; i++) {
      const date = new Date(start + i * 86_399_999);
      assert.equal(isoTime(date), date.toISOString());
      assert.equal(isoTime(new Date(date.getTime())), date.toISOString(), 'the kept text');
    }
  });

  it('throws on an invalid date, as toISOString does, every time', () => {
    assert.throws(() => isoTime(new Date(NaN)), RangeError);
    assert.throws(() => isoTime(new Date(NaN)), RangeError);
  });
});
