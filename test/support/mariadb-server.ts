import { ChildProcess, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { freePort } from './free-port';
import { spawnServer, startOnPorts } from './start-on-ports';
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
  private started = false;
  readonly dir = mkdtempSync(join(tmpdir(), 'svc-mariadb-'));
  private readonly dataDir = join(this.dir, 'data');
  port = 0;

  async init(): Promise<void> {
    const install = spawnSync('mariadb-install-db', [
      '--no-defaults', `--datadir=${this.dataDir}`, '--user=root', '--auth-root-authentication-method=normal', '--skip-test-db',
    ], { encoding: 'utf8', timeout: 120000 });
    if (install.status !== 0) throw new Error(`mariadb-install-db failed: ${install.stderr}`);
    this.port = await freePort();
  }

  get url(): string {
    return `mysql://root@127.0.0.1:${this.port}`;
  }

  /** Starts mariadbd (startOnPorts: a new port on a first start if another file took it) and waits until it answers as itself. */
  async start(): Promise<void> {
    await startOnPorts({
      firstStart: !this.started,
      startOnce: () => this.startOnce(),
      portTaken: /Address already in use|error: 98/i,
      newPorts: async () => {
        this.port = await freePort();
      },
    });
    this.started = true;
  }

  /** One start: undefined once this server answers, else why it did not. */
  private async startOnce(): Promise<string | undefined> {
    const server = spawnServer('/usr/sbin/mariadbd', [
      '--no-defaults', `--datadir=${this.dataDir}`, `--port=${this.port}`, '--bind-address=127.0.0.1',
      `--socket=${join(this.dir, 'mysqld.sock')}`, `--pid-file=${join(this.dir, 'mysqld.pid')}`, '--user=root',
      '--innodb-buffer-pool-size=16M', '--skip-name-resolve', '--skip-log-bin',
    ]);
    this.child = server.child;
    const errors = () => server.stderr().split('\n').filter((line) => line.includes('[ERROR]')).map((line) => line.replace(/^.*\[ERROR\]\s*/, '')).join('; ');
    const deadline = Date.now() + 60000;
    for (;;) {
      const gone = await server.gone();
      if (gone) return `mariadbd on port ${this.port} ${gone}: ${errors()}`;
      try {
        // A short connect timeout: a process holding the port that never answers must not stall the check.
        const conn = await createConnection({ uri: this.url, connectTimeout: 2000 });
        const [rows] = await conn.query('SELECT @@datadir AS dir');
        await conn.end();
        // Another server on this port would answer too: only ours has this data directory.
        const dir = String((rows as { dir: string }[])[0].dir).replace(/\/+$/, '');
        if (dir === this.dataDir) return undefined;
      } catch (err) {
        if (Date.now() > deadline) {
          await stopChild(server.child);
          return `mariadbd on port ${this.port} did not start within 60 s: ${(err as Error).message}; ${errors()}`;
        }
      }
      await new Promise((r) => setTimeout(r, 200));
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
