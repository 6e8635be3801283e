import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

/**
 * The module arrows of docs/architecture.md, checked with dependency-cruiser against the sources
 * (.dependency-cruiser.cjs). Fixture trees with deliberately wrong imports prove the rules catch them.
 */
const ROOT = join(__dirname, '..', '..');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');

/**
 * One entry of dependency-cruiser's summary.violations: `type` 'dependency' for a rule on an import between
 * files, 'cycle' for a file cycle or (with a `scope: 'folder'` rule) a cycle between folders, where from
 * and to are the folders, e.g. 'src/common' -> 'src/database'.
 */
interface Violation {
  type: string;
  rule: { name: string };
  from: string;
  to: string;
}

function cruise(cwd: string): Violation[] {
  // The JSON passed spawnSync's default 1 MiB buffer as the tree grew (a truncated answer, then a parse error).
  const out = spawnSync('npx', ['--no-install', 'depcruise', 'src', '--config', CONFIG, '--output-type', 'json'], {
    cwd,
    encoding: 'utf8',
    timeout: 120000,
    maxBuffer: 64 * 1024 * 1024,
  });
  assert.ok(out.stdout, `depcruise printed nothing: ${out.stderr}`);
  assert.equal(out.error, undefined, `depcruise did not finish: ${out.error?.message}`);
  return (JSON.parse(out.stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

describe('module dependencies (docs/architecture.md)', () => {
  it('src/ breaks none of the rules', () => {
    const violations = cruise(ROOT);
    assert.deepEqual(violations.map((v) => `${v.rule.name} (${v.type}): ${v.from} -> ${v.to}`), []);
  });

  it('catches deliberately wrong imports (common/ importing a feature, database/ importing common/) and nothing allowed', () => {
    const violations = cruise(join(ROOT, 'test', 'fixtures', 'layering'));
    assert.deepEqual(
      violations.map((v) => [v.rule.name, v.from, v.to]),
      [
        ['common-imports-no-feature', 'src/common/leaky.ts', 'src/users/account.ts'],
        ['database-imports-no-common', 'src/database/uses-common.ts', 'src/common/clock.ts'],
      ],
    );
  });

  it('catches two parts importing each other through different files, which no file cycle shows', () => {
    // alpha/uses-beta.ts -> beta/two.ts and beta/uses-alpha.ts -> alpha/three.ts: only the folder rule sees it
    // (once from each side of the cycle).
    const violations = cruise(join(ROOT, 'test', 'fixtures', 'layering-cycle'));
    assert.deepEqual(
      violations.map((v) => [v.rule.name, v.type, v.from, v.to]).sort(),
      [
        ['no-cycles-between-parts', 'cycle', 'src/alpha', 'src/beta'],
        ['no-cycles-between-parts', 'cycle', 'src/beta', 'src/alpha'],
      ],
    );
  });

  it("catches src/sso/ reaching into a library's internals, as it did before issue 33, and nothing public", () => {
    // old-imports.ts holds the two imports src/sso/ had (a file under node-saml's lib/, a sub-path openid-client's
    // exports map does not offer); public-imports.ts the public entries and exported sub-paths; auth/ is out of scope.
    const violations = cruise(join(ROOT, 'test', 'fixtures', 'library-internals'));
    assert.deepEqual(
      violations.map((v) => [v.rule.name, v.from, v.to.replace(/^(\.\.\/)+/, '')]).sort(),
      [
        ['sso-no-library-internals', 'src/sso/old-imports.ts', 'node_modules/@node-saml/node-saml/lib/xml.js'],
        ['sso-no-unexported-subpaths', 'src/sso/old-imports.ts', 'openid-client/build/passport'],
      ],
    );
  });

  it('draws the diagram of docs/architecture.md from the code as it is', () => {
    const generated = spawnSync('bash', [join(ROOT, 'scripts', 'architecture.sh'), '--mermaid'], { cwd: ROOT, encoding: 'utf8', timeout: 120000 });
    assert.equal(generated.status, 0, generated.stderr);
    const doc = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');
    const block = /<!-- generated:mermaid -->\n```mermaid\n([\s\S]*?)\n```\n<!-- \/generated:mermaid -->/.exec(doc)?.[1];
    assert.equal(block, generated.stdout.trim(), 'docs/architecture.md is out of date: run bash scripts/architecture.sh --write');
  });
});

/**
 * Static configuration is read from the environment in one place, src/config/ (loadAppConfig): everything
 * else gets it injected (APP_CONFIG). dependency-cruiser sees imports, not `process.env`, so this is a scan
 * of the sources: every .ts file under src/ but src/config/ and the unit tests (*.spec.ts).
 */
const ENV_READ = /\bprocess\s*(\.\s*env\b|\[\s*['"`]env['"`]\s*\])|\benv\b[^=;]*\}\s*=\s*process\b/;

/** `file:line` of every environment read under root/src outside src/config/ and the unit tests. */
function envReads(root: string): string[] {
  const found: string[] = [];
  const files = readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' })
    .map((f) => `src/${f.split('\\').join('/')}`)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts') && !f.startsWith('src/config/'))
    .sort();
  for (const file of files) {
    readFileSync(join(root, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (ENV_READ.test(line)) found.push(`${file}:${i + 1}`);
      });
  }
  return found;
}

describe('the environment is read in src/config/ only', () => {
  it('src/ reads process.env nowhere else', () => {
    assert.deepEqual(envReads(ROOT), []);
  });

  it('catches a read outside config/ in a fixture tree, and none in config/ or a unit test', () => {
    assert.deepEqual(envReads(join(ROOT, 'test', 'fixtures', 'env-reads')), [
      'src/feature/bracket-read.ts:3',
      'src/feature/destructured-read.ts:3',
      'src/feature/reads-env.ts:3',
    ]);
  });
});
