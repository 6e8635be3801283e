/**
 * The arrows of ../shared/STYLE.md, checked by `npm test` (test/architecture.e2e-spec.ts) and drawn in
 * docs/architecture.md. A rule broken here is a design decision, not a lint warning: change the code,
 * or change the rule and the doc together.
 */
const FEATURES = '(activity-stream|api|auth|authentication-events|cli|credentials|external-logins|hosts|job-templates|ldap|log-forwarding|maps|mfa|oauth2|organizations|pending-state|radius|resources|sessions|settings|sso|tokens|ui|users)';

const { existsSync, readFileSync } = require('node:fs');
const { join, posix } = require('node:path');

/**
 * The files a package offers to its users, as a regular expression over resolved paths: its `main` and
 * every target of its `exports` map (a `*` there matches any sub-path), for each package this project
 * declares in package.json. Anything else reached inside a package is one of its internals (`lib/`,
 * `build/`, `dist/`…): the library may move or change it in any release.
 */
function publicEntries() {
  const escape = (text) => text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  const own = JSON.parse(readFileSync(join(__dirname, 'package.json'), 'utf8'));
  const alternatives = [];
  for (const name of Object.keys({ ...own.dependencies, ...own.devDependencies })) {
    const file = join(__dirname, 'node_modules', name, 'package.json');
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, 'utf8'));
    const targets = new Set();
    const collect = (value) => {
      if (typeof value === 'string') targets.add(value);
      else if (value && typeof value === 'object') Object.values(value).forEach(collect);
    };
    collect(pkg.exports);
    const main = posix.normalize(pkg.main ?? 'index.js').replace(/\/$/, '');
    for (const candidate of [main, `${main}.js`, `${main}/index.js`]) targets.add(candidate);
    for (const target of targets) {
      alternatives.push(`${escape(name)}/${escape(posix.normalize(target).replace(/^\.\//, '')).replace(/\*/g, '.+')}`);
    }
  }
  return `(^|/)node_modules/(${alternatives.join('|')})$`;
}

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
      comment: 'users/ sits below sessions and tokens (and auth), and below the login methods (ldap, radius, sso), which register with it: it never imports them.',
      from: { path: '^src/users/' },
      to: { path: '^src/(auth|sessions|tokens|ldap|radius|sso)/' },
    },
    {
      name: 'maps-name-no-method',
      severity: 'error',
      comment: "The maps (SPEC §21) are one engine that every login method's claims go through: methods register how they read AWX's settings (MapSources); maps/ never imports a method.",
      from: { path: '^src/maps/' },
      to: { path: '^src/(ldap|radius|sso|auth)/' },
    },
    {
      name: 'organizations-below-maps',
      severity: 'error',
      comment: 'organizations/ is a resource module the maps write through (RolesRepository): it never imports maps/.',
      from: { path: '^src/organizations/' },
      to: { path: '^src/maps/' },
    },
    {
      name: 'users-imports-no-organizations',
      severity: 'error',
      comment: 'organizations/ holds roles over users (its role holders reference them): it tells users/ whom a caller sees through UserVisibility, and users/ never imports it.',
      from: { path: '^src/users/' },
      to: { path: '^src/organizations/' },
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
    {
      name: 'sso-no-library-internals',
      severity: 'error',
      comment:
        'Single sign-on runs on the public API of openid-client, node-saml, jose and xmldom (issue 33): never a file of a ' +
        "package beyond its main entry and its exports map (e.g. @node-saml/node-saml/lib/xml), which the library may change in any release.",
      from: { path: '^src/sso/' },
      to: { path: '(^|/)node_modules/', pathNot: publicEntries() },
    },
    {
      name: 'sso-no-unexported-subpaths',
      severity: 'error',
      comment:
        "A package's sub-path its exports map does not offer (e.g. openid-client/build/passport) cannot be resolved the way " +
        'Node resolves it: reaching past the map is reaching into the internals.',
      from: { path: '^src/sso/' },
      to: { couldNotResolve: true, path: '^[^./]' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^dist/|\\.spec\\.ts$)' },
    tsPreCompilationDeps: true,
    // Resolve packages as Node does, exports maps included, so a sub-path a package does not export stays unresolved.
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
    // The project's tsconfig when cruising the project; the rule tests cruise a fixture tree without one.
    ...(require('node:fs').existsSync('tsconfig.json') ? { tsConfig: { fileName: 'tsconfig.json' } } : {}),
    reporterOptions: {
      archi: { collapsePattern: '^src/[^/]+' },
    },
  },
};
