import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CorporateAccount {
  password: string;
  email: string;
  groups: string[];
}

/**
 * The tests' corporate login endpoint (the peer of test/support/http-check-method/), on 127.0.0.1 and a free
 * port: `POST {"username", "password"}` answers 200 `{"email", "groups"}`, 401 for a wrong password, 404 for a
 * name it does not know, and 503 while `down`. It records what it was asked (names only).
 */
export class CorporateEndpoint {
  readonly accounts = new Map<string, CorporateAccount>();
  readonly asked: string[] = [];
  down = false;
  private server?: Server;

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        const { username, password } = JSON.parse(body || '{}') as { username?: string; password?: string };
        this.asked.push(String(username));
        const account = this.accounts.get(String(username));
        const [status, answer] = this.down ? [503, {}] : !account ? [404, {}] : account.password !== password ? [401, {}] : [200, { email: account.email, groups: account.groups }];
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/check`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
