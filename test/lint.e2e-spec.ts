import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';

/**
 * The lint (eslint.config.mjs: typescript-eslint's promise rules, with type information, and max-lines) that
 * `npm test` runs over the whole tree right after the build (scripts/test-all.sh), so a clean tree is checked
 * there. Here a fixture with one mistake per rule proves the project's own config catches each of them.
 */
const ROOT = join(__dirname, '..', '..');
const FIXTURE = join(ROOT, 'test', 'fixtures', 'lint', 'floating.ts');
const LONG_FIXTURE = join(ROOT, 'test', 'fixtures', 'lint', 'long-file.ts');

interface LintResult {
  messages: { ruleId: string | null; line: number; message: string }[];
}

/** The project's eslint over one fixture; --no-ignore: the tree's lint leaves test/fixtures/ out, these are linted on purpose. */
function lint(file: string): LintResult {
  const out = spawnSync('npx', ['--no-install', 'eslint', '--no-ignore', '--format', 'json', file], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  assert.equal(out.status, 1, `eslint should fail on the fixture: ${out.stderr}`);
  return (JSON.parse(out.stdout) as LintResult[])[0];
}

describe('lint (eslint.config.mjs)', () => {
  it('reports a floating promise, a promise where a void callback goes, and an await of a non-promise', () => {
    const result = lint(FIXTURE);
    assert.deepEqual(
      result.messages.map((m) => [m.ruleId, m.line]),
      [
        ['@typescript-eslint/no-floating-promises', 9],
        ['@typescript-eslint/no-misused-promises', 13],
        ['@typescript-eslint/await-thenable', 17],
      ],
    );
  });

  it('reports a file over 300 physical lines (blank and comment lines count, as in `wc -l`)', () => {
    const result = lint(LONG_FIXTURE);
    assert.deepEqual(
      result.messages.map((m) => [m.ruleId, m.line, m.message]),
      [['max-lines', 301, 'File has too many lines (301). Maximum allowed is 300.']],
    );
  });
});
