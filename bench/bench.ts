import { spawn, ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * `npm run bench`: starts the built service on a fresh SQLite database and measures, in one run,
 * requests per second and p50/p99 latency for each path, printing authenticated rows as a ratio of
 * the public ping. Every response must be the expected status, so a broken path cannot look fast.
 */
const DURATION_MS = Number(process.env.BENCH_SECONDS ?? 5) * 1000;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const ADMIN_PASSWORD = 'Bench-admin-pass-1';

interface Row {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  requests: number;
}

async function startService(extraEnv: Record<string, string> = {}): Promise<{ url: string; child: ChildProcess; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const child = spawn(process.execPath, [join(__dirname, '..', 'src', 'main.js')], {
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', DATA_DIR: dir, ADMIN_PASSWORD, LOG_LEVEL: 'warn', ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  return new Promise((resolve, reject) => {
    const onData = (c: Buffer) => {
      out += c.toString();
      const m = /"event":"listening","url":"(http:\/\/[^"]+?)\/"/.exec(out);
      if (m) resolve({ url: m[1], child, dir });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`service exited ${code}: ${out}`)));
  });
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

function once(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
  });
}

async function measure(name: string, url: string, headers: Record<string, string>, expect = 200): Promise<Row> {
  for (let i = 0; i < 50; i++) await once(url, headers); // warm-up
  const latencies: number[] = [];
  const deadline = Date.now() + DURATION_MS;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < deadline) {
        const t0 = process.hrtime.bigint();
        const status = await once(url, headers);
        if (status !== expect) throw new Error(`${name}: expected ${expect}, got ${status}`);
        latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
  return { name, rps: latencies.length / seconds, p50: pct(50), p99: pct(99), requests: latencies.length };
}

/** Logs in through the form, as a browser does, and returns the session cookie. */
async function sessionCookie(url: string): Promise<string> {
  const csrf = 'b'.repeat(43);
  const body = `username=admin&password=${encodeURIComponent(ADMIN_PASSWORD)}`;
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}/api/login/`, {
      method: 'POST',
      headers: { Cookie: `csrftoken=${csrf}`, 'X-CSRFToken': csrf, 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': Buffer.byteLength(body) },
    }, (res) => {
      res.resume();
      const cookie = (res.headers['set-cookie'] ?? []).find((c) => c.startsWith('svc_session_id='));
      if (res.statusCode !== 302 || !cookie) return reject(new Error(`login failed: ${res.statusCode}`));
      resolve(cookie.split(';')[0]);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A personal access token created the seed's way: POST /api/v2/tokens/ with basic credentials. */
async function personalToken(url: string, basicHeader: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}/api/v2/tokens/`, { method: 'POST', headers: { ...basicHeader, 'Content-Type': 'application/json' } }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => (res.statusCode === 201 ? resolve(JSON.parse(body).token) : reject(new Error(`token creation failed: ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end('{"description": "bench", "scope": "read"}');
  });
}

/** Basic auth with the repeat-credential fast path turned off, on a second service instance. */
async function basicWithoutFastPath(header: Record<string, string>): Promise<Row> {
  const { url, child, dir } = await startService({ AUTH_FAST_PATH: 'off' });
  try {
    return await measure('GET /api/v2/me/ (basic, no fast path)', `${url}/api/v2/me/`, header);
  } finally {
    child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { url, child, dir } = await startService();
  try {
    const basicHeader = { Authorization: 'Basic ' + Buffer.from(`admin:${ADMIN_PASSWORD}`).toString('base64') };
    const rows: Row[] = [];
    rows.push(await measure('GET /api/v2/ping/ (public)', `${url}/api/v2/ping/`, {}));
    rows.push(await measure('GET /api/v2/me/ (basic)', `${url}/api/v2/me/`, basicHeader));
    rows.push(await measure('GET /api/v2/me/ (session)', `${url}/api/v2/me/`, { Cookie: await sessionCookie(url) }));
    rows.push(await measure('GET /api/v2/me/ (bearer)', `${url}/api/v2/me/`, { Authorization: `Bearer ${await personalToken(url, basicHeader)}` }));
    rows.push(await basicWithoutFastPath(basicHeader));
    const ping = rows[0];
    console.log(`duration ${DURATION_MS / 1000}s per row, concurrency ${CONCURRENCY}, SQLite, one process`);
    console.log('path'.padEnd(42) + 'req/s'.padStart(10) + 'p50 ms'.padStart(10) + 'p99 ms'.padStart(10) + 'vs ping'.padStart(10) + 'requests'.padStart(10));
    for (const r of rows) {
      console.log(
        r.name.padEnd(42) + r.rps.toFixed(0).padStart(10) + r.p50.toFixed(2).padStart(10) + r.p99.toFixed(2).padStart(10) +
          (r.rps / ping.rps).toFixed(2).padStart(10) + String(r.requests).padStart(10),
      );
    }
  } finally {
    child.kill('SIGTERM');
    agent.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err.message);
  process.exit(1);
});
