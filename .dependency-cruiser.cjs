/**
 * The arrows of ../shared/STYLE.md, checked by `npm test` (test/architecture.e2e-spec.ts) and drawn in
 * docs/architecture.md. A rule broken here is a design decision, not a lint warning: change the code,
 * or change the rule and the doc together.
 */
const FEATURES = '(api|auth|cli|credentials|hosts|job-templates|ldap|mfa|oauth2|pending-state|resources|sessions|settings|sso|tokens|ui|users)';

module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'Modules form a layered graph: a cycle means two modules are really one, or a dependency points the wrong way.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-cycles-between-parts',
      severity: 'error',
      comment:
        'A top-level part (src/<dir>/) and another never import each other, even through different files (which no-cycles, ' +
        'a rule on files, cannot see): the parts form layers, database/ below common/ below the features.',
      scope: 'folder',
      from: { path: '^src/[^/]+/?$' },
      to: { circular: true },
    },
    {
      name: 'common-imports-no-feature',
      severity: 'error',
      comment: 'common/ is what every module uses (the pipeline, the authenticator, errors): it knows no feature.',
      from: { path: '^src/common/' },
      to: { path: `^src/${FEATURES}/` },
    },
    {
      name: 'config-imports-nothing-of-ours',
      severity: 'error',
      comment: 'config/ is the ground floor: static configuration read by everyone.',
      from: { path: '^src/config/' },
      to: { path: '^src/', pathNot: '^src/config/' },
    },
    {
      name: 'database-imports-no-feature',
      severity: 'error',
      comment: 'database/ holds the options, migrations and transactions; entities are registered by their own modules.',
      from: { path: '^src/database/' },
      to: { path: `^src/${FEATURES}/` },
    },
    {
      name: 'database-imports-no-common',
      severity: 'error',
      comment: 'database/ sits below common/: common/ may use the database (health, off-thread reads), never the other way.',
      from: { path: '^src/database/' },
      to: { path: '^src/common/' },
    },
    {
      name: 'features-never-import-auth',
      severity: 'error',
      comment: 'auth/ is the front door; features register strategies with the authenticator in common/ instead.',
      from: { path: `^src/${FEATURES}/`, pathNot: '^src/auth/' },
      to: { path: '^src/auth/' },
    },
    {
      name: 'users-imports-no-credentials',
      severity: 'error',
      comment: 'users/ sits below sessions and tokens (and auth), and below the password backends (ldap), which register with it: it never imports them.',
      from: { path: '^src/users/' },
      to: { path: '^src/(auth|sessions|tokens|ldap)/' },
    },
    {
      name: 'settings-imports-no-feature',
      severity: 'error',
      comment: 'Everything reads settings; settings imports no feature module.',
      from: { path: '^src/settings/' },
      to: { path: `^src/${FEATURES}/`, pathNot: '^src/settings/' },
    },
    {
      name: 'resources-see-only-a-principal',
      severity: 'error',
      comment: 'Hosts, credentials and job templates see a principal, never a session or a token.',
      from: { path: '^src/(resources|hosts|credentials|job-templates)/' },
      to: { path: '^src/(sessions|tokens|oauth2|sso)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^dist/|\\.spec\\.ts$)' },
    tsPreCompilationDeps: true,
    // The project's tsconfig when cruising the project; the rule tests cruise a fixture tree without one.
    ...(require('node:fs').existsSync('tsconfig.json') ? { tsConfig: { fileName: 'tsconfig.json' } } : {}),
    reporterOptions: {
      archi: { collapsePattern: '^src/[^/]+' },
    },
  },
};
