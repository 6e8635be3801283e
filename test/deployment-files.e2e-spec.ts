import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { TEST_DB } from './support/test-db';

/** The compose files are valid as docker-compose reads them (docs/deployment.md). */
const DOCKER = join(__dirname, '..', '..', 'docker');

describe('deployment files', { skip: TEST_DB !== 'sqlite' ? 'database-independent: runs in the SQLite half' : false }, () => {
  for (const file of ['compose.yaml', 'compose.galera.yaml']) {
    it(`${file} passes docker-compose config`, () => {
      const res = spawnSync('docker-compose', ['-f', join(DOCKER, file), 'config'], {
        env: { PATH: process.env.PATH ?? '', MYSQL_PASSWORD: 'p', ADMIN_PASSWORD: 'p', SECRET_KEY: 's'.repeat(40) },
        encoding: 'utf8',
      });
      assert.equal(res.error, undefined, 'docker-compose is installed (.ci/run installs it)');
      assert.equal(res.status, 0, res.stderr);
      if (file === 'compose.galera.yaml') {
        for (const name of ['galera1', 'galera2', 'galera3', 'service1', 'service2', 'service3', 'lb']) assert.match(res.stdout, new RegExp(`^  ${name}:`, 'm'));
        assert.match(res.stdout, /--wsrep-new-cluster/);
      }
    });
  }
});
