import Database from 'better-sqlite3';
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stopChild } from './stop-child';

export const FREERADIUS = process.env.FREERADIUS_PATH ?? '/usr/sbin/freeradius';

/** One account of the test's RADIUS server, and how the server answers it. */
export interface RadiusAccount {
  password?: string;
  /** Reply attributes of an Access-Accept (`Class`, `Filter-Id`, …): name and value, in order. */
  reply?: [string, string][];
  /** Always an Access-Reject (`Auth-Type := Reject`). */
  reject?: boolean;
  /** An Access-Challenge (`Response-Packet-Type := Access-Challenge`) with a State and a Reply-Message, after the right password. */
  challenge?: boolean;
  /** An Access-Accept without Message-Authenticator: FreeRADIUS before its BlastRADIUS fix, configured as it shipped. */
  noMessageAuthenticator?: boolean;
}

/** A loopback UDP port nobody listens on right now. */
export function freeUdpPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = createSocket('udp4');
    socket.once('error', reject);
    socket.bind(0, '127.0.0.1', () => {
      const { port } = socket.address();
      socket.close(() => resolve(port));
    });
  });
}

/**
 * A FreeRADIUS of a test's own (Debian's freeradius 3.2.1, never a mock and never the system one): a temp
 * folder with a private minimal configuration (one client, 127.0.0.1, with a secret of its own; one
 * virtual server listening on a free loopback port), its accounts in an SQLite file that rlm_sql reads at
 * every request, so a test changes a password or removes an account while the server runs; started once
 * per test file and stopped by its pid. It requires a Message-Authenticator in every request. 3.2.1 predates
 * the server's own BlastRADIUS fix and signs no reply by itself: the accounts' reply items add
 * `Message-Authenticator := 0x00` (the server computes the HMAC over the reply in its place) and the REJECT
 * post-auth section does the same for every Access-Reject.
 */
export class FreeRadiusServer {
  private child?: ChildProcess;
  private db?: Database.Database;
  readonly dir = mkdtempSync(join(tmpdir(), 'svc-freeradius-'));
  readonly secret = 'radius-shared-' + randomBytes(6).toString('hex');
  port = 0;
  /** Everything the server logged (one line per request decided: `Login OK: [name]`, `Login incorrect …: [name]`). */
  readonly output: string[] = [];

  async start(accounts: Record<string, RadiusAccount>): Promise<void> {
    this.port = await freeUdpPort();
    writeFileSync(join(this.dir, 'dictionary'), '');
    writeFileSync(join(this.dir, 'radiusd.conf'), this.configuration());
    this.db = new Database(join(this.dir, 'accounts.sqlite'));
    this.db.exec(`
      CREATE TABLE radcheck (id INTEGER PRIMARY KEY AUTOINCREMENT, username TEXT NOT NULL, attribute TEXT NOT NULL, op TEXT NOT NULL, value TEXT NOT NULL);
      CREATE TABLE radreply (id INTEGER PRIMARY KEY AUTOINCREMENT, username TEXT NOT NULL, attribute TEXT NOT NULL, op TEXT NOT NULL, value TEXT NOT NULL);`);
    for (const [name, account] of Object.entries(accounts)) this.setAccount(name, account);
    this.child = spawn(FREERADIUS, ['-f', '-d', this.dir, '-l', 'stdout'], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout!.on('data', (chunk: Buffer) => this.output.push(chunk.toString('utf8')));
    this.child.stderr!.on('data', (chunk: Buffer) => this.output.push(chunk.toString('utf8')));
    const deadline = Date.now() + 30000;
    while (!this.output.join('').includes('Ready to process requests')) {
      if (this.child.exitCode !== null) throw new Error(`freeradius exited with ${this.child.exitCode}: ${this.output.join('')}`);
      if (Date.now() > deadline) throw new Error('freeradius did not start within 30 s');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Creates, replaces (a new password, other reply attributes) or removes (null) an account; the next request sees it. */
  setAccount(name: string, account: RadiusAccount | null): void {
    const db = this.db!;
    db.prepare('DELETE FROM radcheck WHERE username = ?').run(name);
    db.prepare('DELETE FROM radreply WHERE username = ?').run(name);
    if (!account) return;
    const check = db.prepare('INSERT INTO radcheck (username, attribute, op, value) VALUES (?, ?, ?, ?)');
    const reply = db.prepare('INSERT INTO radreply (username, attribute, op, value) VALUES (?, ?, ?, ?)');
    if (account.reject) check.run(name, 'Auth-Type', ':=', 'Reject');
    if (account.password !== undefined) check.run(name, 'Cleartext-Password', ':=', account.password);
    if (account.challenge) {
      check.run(name, 'Response-Packet-Type', ':=', 'Access-Challenge');
      reply.run(name, 'Reply-Message', '=', 'Enter the code from your token');
      reply.run(name, 'State', '=', '0x01020304');
    }
    for (const [attribute, value] of account.reply ?? []) reply.run(name, attribute, '+=', value);
    if (!account.noMessageAuthenticator) reply.run(name, 'Message-Authenticator', ':=', '0x00');
  }

  /** How many requests for `name` the server decided (its auth log), names compared without case. */
  requestsFor(name: string): number {
    const wanted = `[${name.toLowerCase()}]`;
    return this.output.join('').split('\n').filter((line) => / Auth: .*Login (OK|incorrect)/.test(line) && line.toLowerCase().includes(wanted)).length;
  }

  /** Waits until the server has logged `count` decisions for `name` (its log reaches us through a pipe, a little after the reply). */
  async waitForRequests(name: string, count: number): Promise<number> {
    for (let waited = 0; this.requestsFor(name) < count && waited < 5000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    return this.requestsFor(name);
  }

  /** Waits until the server's log matches `pattern` (or 5 s have passed); whether it did. */
  async waitForLine(pattern: RegExp): Promise<boolean> {
    for (let waited = 0; !pattern.test(this.output.join('')) && waited < 5000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    return pattern.test(this.output.join(''));
  }

  stop(): Promise<void> {
    return stopChild(this.child);
  }

  async destroy(): Promise<void> {
    await this.stop();
    this.db?.close();
    rmSync(this.dir, { recursive: true, force: true });
  }

  private configuration(): string {
    return `
prefix = /usr
libdir = /usr/lib/freeradius
raddbdir = ${this.dir}
localstatedir = ${this.dir}
logdir = ${this.dir}
run_dir = ${this.dir}
pidfile = ${join(this.dir, 'radiusd.pid')}
max_request_time = 5
cleanup_delay = 0
max_requests = 1024
hostname_lookups = no
log {
  destination = stdout
  auth = yes
  auth_badpass = no
  auth_goodpass = no
}
security {
  allow_core_dumps = no
  max_attributes = 200
  reject_delay = 0
  status_server = no
}
client service {
  ipaddr = 127.0.0.1
  secret = "${this.secret}"
  require_message_authenticator = yes
}
modules {
  sql {
    dialect = "sqlite"
    driver = "rlm_sql_sqlite"
    sqlite {
      filename = "${join(this.dir, 'accounts.sqlite')}"
    }
    read_clients = no
    read_groups = no
    sql_user_name = "%{User-Name}"
    authorize_check_query = "SELECT id, username, attribute, value, op FROM radcheck WHERE username = '%{SQL-User-Name}' ORDER BY id"
    authorize_reply_query = "SELECT id, username, attribute, value, op FROM radreply WHERE username = '%{SQL-User-Name}' ORDER BY id"
    pool {
      start = 1
      min = 1
      max = 4
      spare = 1
      uses = 0
      lifetime = 0
      idle_timeout = 0
    }
  }
  pap {
  }
}
server default {
  listen {
    type = auth
    ipaddr = 127.0.0.1
    port = ${this.port}
  }
  authorize {
    sql
    pap
  }
  authenticate {
    Auth-Type PAP {
      pap
    }
  }
  post-auth {
    Post-Auth-Type REJECT {
      update reply {
        Message-Authenticator := 0x00
      }
    }
  }
}
`;
  }
}
