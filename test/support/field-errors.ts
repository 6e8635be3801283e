import assert from 'node:assert/strict';
import type { z } from 'zod';
import { FieldErrors } from '../../src/common/errors';
import { validateValue } from '../../src/common/validation';

/** The field errors a settings value gets (`{"KEY": …}`), as a write answers them; fails when it is accepted. */
export function fieldErrorsOf(schema: z.ZodType, value: unknown, key = 'KEY'): unknown {
  try {
    validateValue(schema, value, key);
  } catch (err) {
    assert.ok(err instanceof FieldErrors);
    return err.errors;
  }
  assert.fail('the value was accepted');
}
