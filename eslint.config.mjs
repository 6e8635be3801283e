// @ts-check
/**
 * ESLint with type information (typescript-eslint): the promise rules the compiler cannot check. A promise
 * nobody awaits loses its rejection (an unhandled rejection, or a failure no test sees), and a promise
 * passed where a callback's result is ignored (an event handler, forEach) runs unawaited the same way.
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
);
