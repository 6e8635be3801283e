import { createSocket, Socket as UdpSocket } from 'node:dgram';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { connect, isIP, Socket } from 'node:net';
import type { ForwardingConfig } from './logging-settings';

/** Delivers one record's wire text; rejects when the receiver did not take it. */
export interface LogTransport {
  send(config: ForwardingConfig, payload: string): Promise<void>;
  close(): void;
}

/** The host tcp and udp connect to: a URL's host when LOG_AGGREGATOR_HOST is written as one. */
export function socketHost(host: string): string {
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(host)) return new URL(host).hostname.replace(/^\[(.*)\]$/, '$1');
  return host.replace(/^\[(.*)\]$/, '$1').replace(/[/?#].*$/, '').replace(/:\d{1,5}$/, '');
}

/** AWX's https target: `https://` assumed without a scheme; the URL's port, else LOG_AGGREGATOR_PORT, else the scheme's. */
export function httpsUrl(config: Pick<ForwardingConfig, 'host' | 'port'>): URL {
  const host = config.host ?? '';
  const url = new URL(/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(host) ? host : `https://${host}`);
  if (!url.port && config.port !== null) url.port = String(config.port);
  return url;
}

/** Runs `work` with a deadline: the receiver answering nothing within the timeout is a failure. */
function within<T>(ms: number, work: (fail: (e: Error) => void) => Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    work(reject).then(resolve, reject).finally(() => clearTimeout(timer));
  });
}

/**
 * `tcp`: the JSON text and a LF per record on one kept connection (AWX's `%rawmsg-after-pri%`). A connection the
 * receiver closed is noticed by its FIN (the socket is read and discarded) before the next record is written on it.
 */
export class TcpTransport implements LogTransport {
  private socket?: Socket;
  private target?: string;
  private open = false;

  async send(config: ForwardingConfig, payload: string): Promise<void> {
    const host = socketHost(config.host!);
    const target = `${host}\u0000${config.port}`;
    if (!this.socket || !this.open || this.target !== target) await this.connect(host, config.port!, target, config.timeoutMs);
    const socket = this.socket!;
    await within(config.timeoutMs, () => new Promise<void>((resolve, reject) => socket.write(`${payload}\n`, (err) => (err ? reject(err) : resolve()))));
  }

  private async connect(host: string, port: number, target: string, timeoutMs: number): Promise<void> {
    this.close();
    const socket = connect({ host, port });
    this.socket = socket;
    this.target = target;
    const lost = () => {
      if (this.socket === socket) this.open = false;
    };
    socket.on('end', lost).on('close', lost).on('error', lost);
    socket.resume();
    try {
      await within(timeoutMs, (fail) => new Promise<void>((resolve) => {
        socket.once('connect', resolve);
        socket.once('error', fail);
      }));
    } catch (err) {
      socket.destroy();
      throw err;
    }
    this.open = true;
  }

  close(): void {
    this.socket?.destroy();
    this.socket = undefined;
    this.open = false;
  }
}

/** `udp`: one datagram per record, the JSON text. */
export class UdpTransport implements LogTransport {
  private sockets = new Map<'udp4' | 'udp6', UdpSocket>();

  async send(config: ForwardingConfig, payload: string): Promise<void> {
    const host = socketHost(config.host!);
    const family = isIP(host) === 6 ? 'udp6' : 'udp4';
    let socket = this.sockets.get(family);
    if (!socket) {
      socket = createSocket(family).unref();
      socket.on('error', () => undefined);
      this.sockets.set(family, socket);
    }
    const sending = socket;
    await within(config.timeoutMs, () => new Promise<void>((resolve, reject) => sending.send(payload, config.port!, host, (err) => (err ? reject(err) : resolve()))));
  }

  close(): void {
    for (const socket of this.sockets.values()) socket.close();
    this.sockets.clear();
  }
}

/**
 * `https` (or `http` when written): a POST of one record per request (AWX's omhttp action, batching off), the
 * type's authorization, the server's certificate checked against `cas` unless LOG_AGGREGATOR_VERIFY_CERT is false.
 * A 2xx answer delivers the record.
 */
export class HttpsTransport implements LogTransport {
  private readonly httpAgent = new HttpAgent({ keepAlive: true, maxSockets: 1 });
  private readonly agents = new Map<boolean, HttpsAgent>();

  constructor(private readonly cas: () => string[]) {}

  async send(config: ForwardingConfig, payload: string): Promise<void> {
    const url = httpsUrl(config);
    const headers: Record<string, string> = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) };
    if (config.type === 'splunk') {
      if (config.password) headers.authorization = `Splunk ${config.password}`;
    } else if (config.username) {
      headers.authorization = `Basic ${Buffer.from(`${config.username}:${config.password}`).toString('base64')}`;
    }
    const secure = url.protocol === 'https:';
    const request = secure ? httpsRequest : httpRequest;
    const agent = secure ? this.httpsAgent(config.verifyCert) : this.httpAgent;
    await within(config.timeoutMs, (fail) => new Promise<void>((resolve, reject) => {
      const req = request(url, { method: 'POST', headers, agent }, (res) => {
        res.resume();
        const status = res.statusCode ?? 0;
        res.on('end', () => (status >= 200 && status < 300 ? resolve() : reject(new Error(`the receiver answered ${status}`))));
        res.on('error', reject);
      });
      req.on('error', (err) => {
        reject(err);
        fail(err);
      });
      req.setTimeout(config.timeoutMs, () => req.destroy(new Error('timed out')));
      req.end(payload);
    }));
  }

  private httpsAgent(verify: boolean): HttpsAgent {
    let agent = this.agents.get(verify);
    if (!agent) {
      agent = new HttpsAgent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: verify, ...(verify ? { ca: this.cas() } : {}) });
      this.agents.set(verify, agent);
    }
    return agent;
  }

  close(): void {
    this.httpAgent.destroy();
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }
}
