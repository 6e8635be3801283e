// @ts-check
/**
 * ESLint with type information (typescript-eslint): the promise rules the compiler cannot check. A promise
 * nobody awaits loses its rejection (an unhandled rejection, or a failure no test sees), and a promise
 * passed where a callback's result is ignored (an event handler, forEach) runs unawaited the same way.
 * And `max-lines`: a source file stays under 300 lines.
 * `npm run lint`, run by `npm test` right after the build (scripts/test-all.sh).
 */
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    // The fixture trees are deliberately wrong code for the architecture tests; the lint fixture is linted on its
    // own by test/lint.e2e-spec.ts (with its own tsconfig), to prove the rules fire.
    ignores: ['dist/**', 'node_modules/**', 'test-output/**', 'data/**', 'test/fixtures/**'],
  },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.base],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        // node:test's describe/it return a promise that the runner itself awaits and reports.
        { allowForKnownSafeCalls: [{ from: 'package', name: ['describe', 'it', 'test', 'suite'], package: 'node:test' }] },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
    },
  },
  {
    // STYLE.md: no source file over 300 lines (issue 55). Physical lines, blank and comment lines too, as `wc -l`
    // counts them. Specs are left out, in src/ (*.spec.ts) as in test/ (which `src/**` does not reach): a file of
    // one feature's cases may run longer (a dozen in test/ do). The lint fixture is here so its test can prove the
    // rule fires; the tree's lint ignores test/fixtures/.
    files: ['src/**/*.ts', 'test/fixtures/lint/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: {
      'max-lines': ['error', { max: 300, skipBlankLines: false, skipComments: false }],
    },
  },
);
