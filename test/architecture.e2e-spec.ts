import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

/**
 * The module arrows of docs/architecture.md, checked with dependency-cruiser against the sources
 * (.dependency-cruiser.cjs). A fixture tree with a deliberately wrong import proves the rules catch it.
 */
const ROOT = join(__dirname, '..', '..');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

function cruise(cwd: string): Violation[] {
  const out = spawnSync('npx', ['--no-install', 'depcruise', 'src', '--config', CONFIG, '--output-type', 'json'], { cwd, encoding: 'utf8', timeout: 120000 });
  assert.ok(out.stdout, `depcruise printed nothing: ${out.stderr}`);
  return (JSON.parse(out.stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

describe('module dependencies (docs/architecture.md)', () => {
  it('src/ breaks none of the rules', () => {
    const violations = cruise(ROOT);
    assert.deepEqual(violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`), []);
  });

  it('catches a deliberately wrong import (common/ importing a feature) and nothing allowed', () => {
    const violations = cruise(join(ROOT, 'test', 'fixtures', 'layering'));
    assert.deepEqual(
      violations.map((v) => [v.rule.name, v.from, v.to]),
      [['common-imports-no-feature', 'src/common/leaky.ts', 'src/users/account.ts']],
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
