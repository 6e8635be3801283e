import { ChildProcess, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';
import { spawnServer, startOnPorts } from './start-on-ports';
import { stopChild } from './stop-child';
import { certificateAuthority, issuedCertificate, KeyAndCert } from './x509';


export const SLAPD = process.env.SLAPD_PATH ?? '/usr/sbin/slapd';
const SCHEMAS = ['core', 'cosine', 'inetorgperson', 'nis'];

/** RFC 2307's {SSHA}: what slapd compares a simple bind's password with. */
export function ssha(password: string): string {
  const salt = randomBytes(8);
  return '{SSHA}' + Buffer.concat([createHash('sha1').update(password).update(salt).digest(), salt]).toString('base64');
}

export interface SlapdOptions {
  /** Naming contexts, one mdb database each. */
  suffixes: string[];
  /** Entries loaded before the first start (slapadd), as LDIF, one per suffix. */
  ldif: string[];
}

/**
 * An OpenLDAP server of a test's own (Debian's slapd, never a mock and never the system one): a temp
 * folder with its configuration, data, and a CA of its own that signed its certificate for 127.0.0.1;
 * plain LDAP (with StartTLS) and LDAPS each on a free loopback port; started and stopped by its pid.
 * Stopping and starting it again keeps the data, so a test can take the directory away and bring it back.
 */
export class SlapdServer {
  private child?: ChildProcess;
  private started = false;
  readonly dir = mkdtempSync(join(tmpdir(), 'svc-slapd-'));
  readonly rootDn: string;
  readonly rootPassword = 'root-secret-' + randomBytes(6).toString('hex');
  readonly ca = certificateAuthority('Test LDAP CA');
  readonly serverCert: KeyAndCert;
  ldapPort = 0;
  ldapsPort = 0;

  constructor(private readonly options: SlapdOptions) {
    this.rootDn = `cn=admin,${options.suffixes[0]}`;
    this.serverCert = issuedCertificate(this.ca, '127.0.0.1', { ips: ['127.0.0.1'] });
  }

  get ldapUrl(): string {
    return `ldap://127.0.0.1:${this.ldapPort}`;
  }

  get ldapsUrl(): string {
    return `ldaps://127.0.0.1:${this.ldapsPort}`;
  }

  /** Writes the configuration and loads the entries (slapd not running yet). */
  async init(): Promise<void> {
    writeFileSync(join(this.dir, 'ca.pem'), this.ca.certPem);
    writeFileSync(join(this.dir, 'server.pem'), this.serverCert.certPem + this.ca.certPem);
    writeFileSync(join(this.dir, 'server.key'), this.serverCert.privateKeyPem, { mode: 0o600 });
    const databases = this.options.suffixes.map((suffix, i) => {
      const data = join(this.dir, `data${i}`);
      mkdirSync(data);
      return [
        'database mdb',
        'maxsize 16777216',
        `suffix "${suffix}"`,
        `rootdn "cn=admin,${suffix}"`,
        `rootpw ${this.rootPassword}`,
        `directory ${data}`,
        // Passwords are for binding only; everything else may be read (anonymously too: the template test needs it).
        'access to attrs=userPassword by self write by anonymous auth by * none',
        'access to * by * read',
      ].join('\n');
    });
    const conf = [
      ...SCHEMAS.map((s) => `include /etc/ldap/schema/${s}.schema`),
      'modulepath /usr/lib/ldap',
      'moduleload back_mdb',
      `pidfile ${join(this.dir, 'slapd.pid')}`,
      `argsfile ${join(this.dir, 'slapd.args')}`,
      `TLSCACertificateFile ${join(this.dir, 'ca.pem')}`,
      `TLSCertificateFile ${join(this.dir, 'server.pem')}`,
      `TLSCertificateKeyFile ${join(this.dir, 'server.key')}`,
      ...databases,
      '',
    ].join('\n');
    writeFileSync(join(this.dir, 'slapd.conf'), conf);
    this.options.suffixes.forEach((suffix, i) => {
      const file = join(this.dir, `data${i}.ldif`);
      writeFileSync(file, this.options.ldif[i] ?? '');
      const add = spawnSync('/usr/sbin/slapadd', ['-f', join(this.dir, 'slapd.conf'), '-b', suffix, '-l', file], { encoding: 'utf8', timeout: 60000 });
      if (add.status !== 0) throw new Error(`slapadd failed for ${suffix}: ${add.stderr}`);
    });
    this.ldapPort = await freePort();
    this.ldapsPort = await freePort();
  }

  /** Starts slapd on its ports (startOnPorts: new ones on a first start if another file took one) and waits until both answer. */
  async start(): Promise<void> {
    await startOnPorts({
      firstStart: !this.started,
      startOnce: () => this.startOnce(),
      portTaken: /Address already in use|errno=98/,
      newPorts: async () => {
        this.ldapPort = await freePort();
        this.ldapsPort = await freePort();
      },
    });
    this.started = true;
  }

  /** One start: undefined once both ports answer with slapd still running, else why it failed. */
  private async startOnce(): Promise<string | undefined> {
    // -d none: in the foreground, printing only its errors (such as a port it cannot bind).
    const server = spawnServer(SLAPD, ['-f', join(this.dir, 'slapd.conf'), '-h', `${this.ldapUrl}/ ${this.ldapsUrl}/`, '-d', 'none']);
    this.child = server.child;
    // On one line (the runner's verdict shows an error's first line): slapd's messages without their time and
    // thread prefix or its version banner.
    const why = () =>
      `slapd on ports ${this.ldapPort} and ${this.ldapsPort} (config in ${this.dir}): ` +
      server
        .stderr()
        .split('\n')
        .map((line) => line.replace(/^[0-9a-f]+\.[0-9a-f]+ 0x[0-9a-f]+ /, '').trim())
        .filter((line) => line && !line.includes('@(#)') && !line.includes('OpenLDAP Maintainers'))
        .join('; ');
    const deadline = Date.now() + 30000;
    for (;;) {
      const gone = await server.gone();
      if (gone) return `${gone}: ${why()}`;
      // Both ports answering is not enough when another process holds one of them: slapd writes its pid file
      // only once it has bound every listener.
      if (this.pidFileNames(server.child) && (await answers(this.ldapPort)) && (await answers(this.ldapsPort))) return undefined;
      if (Date.now() > deadline) {
        await stopChild(server.child);
        return `did not start within 30 s: ${why()}`;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  private pidFileNames(child: ChildProcess): boolean {
    try {
      return readFileSync(join(this.dir, 'slapd.pid'), 'utf8').trim() === String(child.pid);
    } catch {
      return false;
    }
  }

  stop(): Promise<void> {
    return stopChild(this.child);
  }

  /** Applies LDIF changes as the root DN with ldap-utils' ldapmodify. */
  modify(ldif: string, suffixIndex = 0): void {
    const rootDn = `cn=admin,${this.options.suffixes[suffixIndex]}`;
    const run = spawnSync('ldapmodify', ['-x', '-H', this.ldapUrl, '-D', rootDn, '-w', this.rootPassword], { input: ldif, encoding: 'utf8', timeout: 30000 });
    if (run.status !== 0) throw new Error(`ldapmodify failed: ${run.stderr}`);
  }

  async destroy(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
