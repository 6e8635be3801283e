import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, TestDatabase, TEST_DB } from './support/test-db';
import { spawnService, ServiceProcess } from './support/service-process';

/**
 * Issue 34: the `curl` lines of the README's opening, in the order a new user types them, against a fresh service: each
 * answers 2xx, and each filtered list finds what the lines before it created. `PASSWORD` is the admin's
 * password, `svcp_…` the token the README's own POST printed, and 127.0.0.1:8013 the test server.
 */
const README = join(__dirname, '..', '..', 'README.md');
const ADMIN_PASSWORD = 'Readme-admin-pass-1';

/**
 * Every line starting with `curl ` in the `sh` blocks of the README's opening, the part a new user follows
 * before its first `## ` section (the later sections hold templates with `…` for the operator's own values).
 */
function curlLines(markdown: string): string[] {
  const lines: string[] = [];
  let inSh = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('## ')) break;
    if (line.startsWith('```')) inSh = !inSh && line.slice(3).trim() === 'sh';
    else if (inSh && line.startsWith('curl ')) lines.push(line);
  }
  return lines;
}

describe(`the README's examples on a fresh install (issue 34, ${TEST_DB})`, () => {
  let db: TestDatabase;
  let node: ServiceProcess;
  const work = mkdtempSync(join(tmpdir(), 'svc-readme-'));

  before(async () => {
    db = await createTestDatabase();
    node = await spawnService({ DATABASE_URL: db.url, DATA_DIR: db.dataDir, ADMIN_PASSWORD });
  });
  after(async () => {
    await node?.stop();
    await db?.drop();
    rmSync(work, { recursive: true, force: true });
  });

  it('answers every curl line in order, and the queries find what the lines before created', () => {
    const lines = curlLines(readFileSync(README, 'utf8'));
    assert.ok(lines.length >= 8, `curl lines found: ${lines.length}`);
    let token = '';
    const body = join(work, 'body');
    for (const line of lines) {
      const command = line
        .replaceAll('admin:PASSWORD', `admin:${ADMIN_PASSWORD}`)
        .replaceAll('svcp_…', token)
        .replaceAll('http://127.0.0.1:8013', node.url)
        .replace(/^curl /, `curl -sS --max-time 20 -o ${JSON.stringify(body)} -w '%{http_code}' `);
      const run = spawnSync('bash', ['-c', command], { encoding: 'utf8', timeout: 30_000 });
      const status = Number(run.stdout.trim());
      const text = readFileSync(body, 'utf8');
      assert.ok(status >= 200 && status < 300, `${line}\n-> ${status} ${text.slice(0, 300)} ${run.stderr}`);
      const answer = JSON.parse(text) as { token?: string; count?: number; results?: unknown[] };
      if (answer.token && !token) token = answer.token;
      // A filtered list is what AWX's clients use to find an object: it must find the one the README made.
      if (line.includes('/?') && Array.isArray(answer.results)) assert.ok((answer.count ?? 0) >= 1, `${line} found nothing`);
    }
    assert.ok(token.startsWith('svcp_'), 'the README printed a token to use');
  });
});
