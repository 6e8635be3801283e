import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { freePort } from './free-port';
import { stopChild } from './stop-child';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';

/**
 * A MariaDB server of a test's own (never the shared one): a fresh data directory from
 * mariadb-install-db, a free port on 127.0.0.1, its own socket, started and stopped by its pid.
 * Stopping and starting it again keeps the data, so a test can take the database away and bring it back.
 */
export class MariaDbServer {
  private child?: ChildProcess;
  readonly dir = mkdtempSync(join(tmpdir(), 'svc-mariadb-'));
  port = 0;

  async init(): Promise<void> {
    const install = spawnSync('mariadb-install-db', [
      '--no-defaults', `--datadir=${join(this.dir, 'data')}`, '--user=root', '--auth-root-authentication-method=normal', '--skip-test-db',
    ], { encoding: 'utf8', timeout: 120000 });
    if (install.status !== 0) throw new Error(`mariadb-install-db failed: ${install.stderr}`);
    this.port = await freePort();
  }

  get url(): string {
    return `mysql://root@127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.child = spawn('/usr/sbin/mariadbd', [
      '--no-defaults', `--datadir=${join(this.dir, 'data')}`, `--port=${this.port}`, '--bind-address=127.0.0.1',
      `--socket=${join(this.dir, 'mysqld.sock')}`, `--pid-file=${join(this.dir, 'mysqld.pid')}`, '--user=root',
      '--innodb-buffer-pool-size=16M', '--skip-name-resolve', '--skip-log-bin',
    ], { stdio: 'ignore' });
    const deadline = Date.now() + 60000;
    for (;;) {
      try {
        const conn = await createConnection(this.url);
        await conn.end();
        return;
      } catch (err) {
        if (Date.now() > deadline || this.child.exitCode !== null) throw new Error(`mariadbd did not start: ${(err as Error).message}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }

  stop(): Promise<void> {
    return stopChild(this.child);
  }

  async destroy(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
