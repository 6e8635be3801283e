import { spawn, ChildProcess } from 'node:child_process';
import http from 'node:http';
import { createConnection } from 'mysql2/promise';

/** What both benchmarks share: a started service process, plain HTTP requests, and the admin's credentials. */
export const MYSQL_URL = process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306';
export const ADMIN_PASSWORD = 'Bench-admin-pass-1';
/** The one token the floor app's in-memory bearer strategy admits (empty-nest-server.ts). */
export const FLOOR_TOKEN = 'floor-bench-token-0123456789abcdef';

export function startProcess(args: string[], env: Record<string, string>, ready: RegExp): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, args, { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`did not start:\n${out}`));
    }, 60000);
    const onData = (c: Buffer) => {
      out += c.toString();
      const m = ready.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1], child });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`exited ${code}:\n${out}`)));
  });
}

export function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

export function request(url: string, init: { method?: string; headers?: Record<string, string>; body?: string }): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    // A fresh connection each time: a kept-alive socket may have been closed by the server during a measurement.
    const req = http.request(url, { method: init.method ?? 'GET', headers: init.headers, agent: false }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

/** Logs in through the form, as a browser does, and returns the session cookie. */
export async function sessionCookie(url: string, username = 'admin', password = ADMIN_PASSWORD): Promise<string> {
  const csrf = 'b'.repeat(43);
  const body = `username=${encodeURIComponent(username)}&password=${encodeURIComponent(password)}`;
  const res = await request(`${url}/api/login/`, {
    method: 'POST',
    headers: { Cookie: `csrftoken=${csrf}`, 'X-CSRFToken': csrf, 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': String(Buffer.byteLength(body)) },
    body,
  });
  const cookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith('svc_session_id='));
  if (res.status !== 302 || !cookie) throw new Error(`login failed: ${res.status}`);
  return cookie.split(';')[0];
}

/** A personal access token created the seed's way: POST /api/v2/tokens/ with basic credentials. */
export async function personalToken(url: string, basicHeader: Record<string, string>): Promise<string> {
  const res = await request(`${url}/api/v2/tokens/`, {
    method: 'POST',
    headers: { ...basicHeader, 'Content-Type': 'application/json' },
    body: '{"description": "bench", "scope": "read"}',
  });
  if (res.status !== 201) throw new Error(`token creation failed: ${res.status}`);
  return JSON.parse(res.body).token;
}

export async function mysqlDatabase(suffix = ''): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `svc_bench_${process.pid}${suffix}`;
  const admin = await createConnection(MYSQL_URL);
  await admin.query(`DROP DATABASE IF EXISTS \`${name}\``);
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4`);
  await admin.end();
  return {
    url: `${MYSQL_URL}/${name}`,
    drop: async () => {
      const conn = await createConnection(MYSQL_URL);
      await conn.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await conn.end();
    },
  };
}

/** The rows of every round, in the order BENCH_ORDER gives (mulberry32 from SEED for the shuffle). */
export function roundOrders<T>(items: T[], rounds: number, order: 'fixed' | 'shuffled', seed: number): T[][] {
  let state = seed >>> 0;
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  return Array.from({ length: rounds }, () => {
    const list = [...items];
    if (order === 'fixed') return list;
    for (let i = list.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [list[i], list[j]] = [list[j], list[i]];
    }
    return list;
  });
}
