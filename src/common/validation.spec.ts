import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { FieldErrors } from './errors';
import { integer, pkOrNull, text, validateBody, validateValue } from './validation';

const BODY = z.object({
  name: text(5),
  note: text(3, { blank: true }).optional(),
  flag: z.boolean().optional(),
  count: integer(1, 10).optional(),
  kind: z.enum(['a', 'b']).optional(),
  owner: pkOrNull.optional(),
  tags: z.array(z.string()).optional(),
  map: z.record(z.string(), z.unknown()).optional(),
});

function errors(run: () => unknown): Record<string, string[]> {
  try {
    run();
  } catch (e) {
    assert.ok(e instanceof FieldErrors, String(e));
    return e.errors;
  }
  assert.fail('accepted');
}

describe('validation adapter (zod issues in DRF words)', () => {
  it('parses a good body, drops unknown fields and leaves out the ones not sent', () => {
    assert.deepEqual(validateBody(BODY, { name: 'x', flag: false, other: 1 }), { name: 'x', flag: false });
  });

  it('maps each kind of issue to the message DRF gives', () => {
    const cases: [unknown, Record<string, string[]>][] = [
      [{}, { name: ['This field is required.'] }],
      [{ name: null }, { name: ['Not a valid string.'] }],
      [{ name: '   ' }, { name: ['This field may not be blank.'] }],
      [{ name: ' '.repeat(9) }, { name: ['This field may not be blank.'] }],
      [{ name: 'abcdef' }, { name: ['Ensure this field has no more than 5 characters.'] }],
      [{ name: 'x', note: '    ' }, { note: ['Ensure this field has no more than 3 characters.'] }],
      [{ name: 'x', flag: 'true' }, { flag: ['Must be a valid boolean.'] }],
      [{ name: 'x', count: 1.5 }, { count: ['A valid integer is required.'] }],
      [{ name: 'x', count: '2' }, { count: ['A valid integer is required.'] }],
      [{ name: 'x', count: 0 }, { count: ['Ensure this value is greater than or equal to 1.'] }],
      [{ name: 'x', count: 1e20 }, { count: ['Ensure this value is less than or equal to 10.'] }],
      [{ name: 'x', kind: 'c' }, { kind: ['"c" is not a valid choice.'] }],
      [{ name: 'x', kind: 1 }, { kind: ['"1" is not a valid choice.'] }],
      [{ name: 'x', kind: { toString: null } }, { kind: ['"[object Object]" is not a valid choice.'] }],
      [{ name: 'x', owner: '3' }, { owner: ['Incorrect type. Expected pk value, received string.'] }],
      [{ name: 'x', owner: 2 ** 31 }, { owner: ['Incorrect type. Expected pk value, received number.'] }],
      [{ name: 'x', tags: 'a' }, { tags: ['Expected a list of items but got type "string".'] }],
      [{ name: 'x', tags: ['a', 2] }, { tags: ['Not a valid string.'] }],
      [{ name: 'x', map: [] }, { map: ['Expected a dictionary of items.'] }],
    ];
    for (const [body, expected] of cases) assert.deepEqual(errors(() => validateBody(BODY, body)), expected, JSON.stringify(body));
  });

  it('reports every bad field at once, one message each, in the schema order', () => {
    const found = errors(() => validateBody(BODY, { flag: 1, name: 7, kind: 'z' }));
    assert.deepEqual(Object.keys(found), ['name', 'flag', 'kind']);
    assert.deepEqual(found, { name: ['Not a valid string.'], flag: ['Must be a valid boolean.'], kind: ['"z" is not a valid choice.'] });
  });

  it('refuses anything but an object as non_field_errors', () => {
    for (const [body, kind] of [[[{ name: 'x' }], 'list'], ['x', 'string'], [3, 'number'], [null, 'object'], [undefined, 'undefined']] as const) {
      assert.deepEqual(errors(() => validateBody(BODY, body)), { non_field_errors: [`Invalid data. Expected a dictionary, but got ${kind}.`] });
    }
  });

  it('PATCH is partial: nothing is required, what is sent is still checked', () => {
    assert.deepEqual(validateBody(BODY, {}, { partial: true }), {});
    assert.deepEqual(errors(() => validateBody(BODY, { name: '' }, { partial: true })), { name: ['This field may not be blank.'] });
  });

  it('names where inside a value an issue is, skips list positions and puts unknown keys first', () => {
    const providers = z.record(
      z.string().regex(/^[a-z]+$/, { error: (issue) => `"${String(issue.input)}" is not a valid provider name.` }),
      z.strictObject({ issuer: z.string(), scopes: z.array(z.string()).optional() }),
    );
    const message = (value: unknown) => errors(() => validateValue(providers, value, 'PROVIDERS')).PROVIDERS;
    assert.deepEqual(message({ corp: {} }), ['corp: issuer: This field is required.']);
    assert.deepEqual(message({ corp: { issuer: 'x', scopes: ['a', 1] } }), ['corp: scopes: Not a valid string.']);
    assert.deepEqual(message({ corp: { issuer: 1, colour: 'red' } }), ['corp: Invalid key names: colour']);
    assert.deepEqual(message({ 'Not A Name': { issuer: 'x' } }), ['"Not A Name" is not a valid provider name.']);
    assert.deepEqual(message([]), ['Expected a dictionary of items.']);
    assert.deepEqual(validateValue(providers, { corp: { issuer: 'x' } }, 'PROVIDERS'), { corp: { issuer: 'x' } });
  });
});
