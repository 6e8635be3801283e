import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dateFromDatabase, fixedUtcDate } from './prepared-statements';

/** What the service read SQLite's datetime text as before it was read digit by digit: V8's date parser. */
const parsed = (text: string) => new Date(`${text.replace(' ', 'T')}Z`);

describe('dateFromDatabase: SQLite datetime text', () => {
  it('reads the stored format exactly as the date parser does, with and without milliseconds', () => {
    // A spread of instants over years 0000–9999, every four-digit year the format holds (a fixed sequence:
    // every run checks the same ones), and the first and last instant of that range.
    const start = new Date('0000-01-01T00:00:00.000Z').getTime();
    const span = new Date('9999-12-31T23:59:59.999Z').getTime() - start;
    let t = 0;
    for (let i = 0; i < 20000; i++) {
      t = (t * 1103515245 + 12345) % span;
      const text = new Date(start + t).toISOString().replace('T', ' ').replace('Z', '');
      assert.equal(fixedUtcDate(text)?.getTime(), parsed(text).getTime(), text);
      const seconds = text.slice(0, 19);
      assert.equal(fixedUtcDate(seconds)?.getTime(), parsed(seconds).getTime(), seconds);
    }
    const edges = ['0000-01-01 00:00:00.000', '0099-12-31 23:59:59.999', '9999-12-31 23:59:59.999', '1969-12-31 23:59:59.999'];
    const leapDays = ['2024-02-29 23:59:59.999', '2000-02-29 00:00:00', '1600-02-29 12:00:00.500', '0004-02-29 00:00:00'];
    for (const text of [...edges, ...leapDays, '2000-01-01 00:00:00.000', '1970-01-01 00:00:00']) {
      assert.equal(fixedUtcDate(text)?.getTime(), parsed(text).getTime(), text);
      assert.equal(dateFromDatabase(text)!.getTime(), parsed(text).getTime(), text);
    }
  });

  it('leaves any other text to the parser, and anything else to what it was', () => {
    const notDays = ['2026-02-31 00:00:00', '2026-02-29 00:00:00', '2100-02-29 00:00:00', '1900-02-29 00:00:00.000', '2026-04-31 00:00:00', '2026-12-32 00:00:00'];
    for (const text of ['2026-11-27T21:00:00.000', '2026-11-27 21:00', '2026-1a-27 21:00:00', ...notDays, '2026-13-01 00:00:00', '2026-00-10 00:00:00', '20261127 210000.000']) {
      assert.equal(fixedUtcDate(text), null, text);
      const expected = parsed(text).getTime();
      const got = dateFromDatabase(text)!.getTime();
      assert.ok(Object.is(got, expected), `${text}: ${got} vs ${expected}`);
    }
    const date = new Date();
    assert.equal(dateFromDatabase(date), date);
    assert.equal(dateFromDatabase(null), null);
    assert.equal(dateFromDatabase(undefined), null);
  });
});
