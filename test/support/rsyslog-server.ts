import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeUdpPort } from './freeradius-server';
import { freePort } from './free-port';
import { stopChild } from './stop-child';

export const RSYSLOGD = process.env.RSYSLOGD_PATH ?? '/usr/sbin/rsyslogd';

/**
 * Debian's rsyslogd as the log receiver of a test (SPEC §23), never the system one: a temp folder with a private
 * configuration (imtcp and imudp on free loopback ports, each message's raw text written to a file of its own),
 * started once per test file and stopped by its pid. `stop` and `start` again keep the ports (a receiver restart).
 */
export class RsyslogServer {
  private child?: ChildProcess;
  readonly dir = mkdtempSync(join(tmpdir(), 'svc-rsyslog-'));
  tcpPort = 0;
  udpPort = 0;
  private readonly output: string[] = [];

  async start(): Promise<void> {
    if (!this.tcpPort) {
      this.tcpPort = await freePort();
      this.udpPort = await freeUdpPort();
    }
    writeFileSync(join(this.dir, 'rsyslog.conf'), this.configuration());
    const child = spawn(RSYSLOGD, ['-n', '-f', join(this.dir, 'rsyslog.conf'), '-i', join(this.dir, 'rsyslogd.pid')], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    child.stdout!.on('data', (chunk: Buffer) => this.output.push(chunk.toString('utf8')));
    child.stderr!.on('data', (chunk: Buffer) => this.output.push(chunk.toString('utf8')));
    // Ready once it accepts on its TCP port (the pid file is written before the listeners open).
    const deadline = Date.now() + 30000;
    while (!(await this.accepting())) {
      if (child.exitCode !== null) throw new Error(`rsyslogd exited with ${child.exitCode}: ${this.output.join('')}`);
      if (Date.now() > deadline) throw new Error(`rsyslogd did not start within 30 s: ${this.output.join('')}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  private accepting(): Promise<boolean> {
    return import('node:net').then(
      ({ connect }) =>
        new Promise<boolean>((resolve) => {
          const socket = connect({ host: '127.0.0.1', port: this.tcpPort });
          socket.once('connect', () => {
            socket.destroy();
            resolve(true);
          });
          socket.once('error', () => resolve(false));
        }),
    );
  }

  private configuration(): string {
    return `
global(workDirectory="${this.dir}" maxMessageSize="256k")
module(load="imtcp")
module(load="imudp")
template(name="raw" type="string" string="%rawmsg%\\n")
ruleset(name="tcp") { action(type="omfile" file="${join(this.dir, 'tcp.log')}" template="raw" flushOnTXEnd="on") }
ruleset(name="udp") { action(type="omfile" file="${join(this.dir, 'udp.log')}" template="raw" flushOnTXEnd="on") }
input(type="imtcp" port="${this.tcpPort}" address="127.0.0.1" ruleset="tcp")
input(type="imudp" port="${this.udpPort}" address="127.0.0.1" ruleset="udp")
`;
  }

  /** Every message received on `protocol` so far, parsed (the receiver sees the bare JSON text). */
  received(protocol: 'tcp' | 'udp'): Record<string, unknown>[] {
    const file = join(this.dir, `${protocol}.log`);
    if (!existsSync(file)) return [];
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  /** The raw text received (for scans: no password may be in it). */
  rawText(): string {
    return ['tcp', 'udp'].map((p) => join(this.dir, `${p}.log`)).filter(existsSync).map((f) => readFileSync(f, 'utf8')).join('');
  }

  async stop(): Promise<void> {
    await stopChild(this.child);
    this.child = undefined;
  }

  async close(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Polls `read` until `done` holds of it (bounded: 60 s), and returns the last value read. */
export async function eventually<T>(read: () => T | Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 60000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not seen within ${timeoutMs} ms (last: ${JSON.stringify(value).slice(0, 2000)})`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
