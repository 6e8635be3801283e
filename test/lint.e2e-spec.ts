import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';

/**
 * The lint (eslint.config.mjs: typescript-eslint's promise rules, with type information) that `npm test`
 * runs over the whole tree right after the build (scripts/test-all.sh), so a clean tree is checked there.
 * Here a fixture with one mistake per rule proves the project's own config catches each of them.
 */
const ROOT = join(__dirname, '..', '..');
const FIXTURE = join(ROOT, 'test', 'fixtures', 'lint', 'floating.ts');

interface LintResult {
  messages: { ruleId: string | null; line: number; message: string }[];
}

describe('lint (eslint.config.mjs)', () => {
  it('reports a floating promise, a promise where a void callback goes, and an await of a non-promise', () => {
    // --no-ignore: the tree's lint leaves test/fixtures/ out; this file is linted on purpose.
    const out = spawnSync('npx', ['--no-install', 'eslint', '--no-ignore', '--format', 'json', FIXTURE], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
    assert.equal(out.status, 1, `eslint should fail on the fixture: ${out.stderr}`);
    const [result] = JSON.parse(out.stdout) as LintResult[];
    assert.deepEqual(
      result.messages.map((m) => [m.ruleId, m.line]),
      [
        ['@typescript-eslint/no-floating-promises', 9],
        ['@typescript-eslint/no-misused-promises', 13],
        ['@typescript-eslint/await-thenable', 17],
      ],
    );
  });
});
