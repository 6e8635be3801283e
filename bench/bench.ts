import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN_PASSWORD, mysqlDatabase, personalToken, sessionCookie, startProcess, stop } from './support';

/**
 * `npm run bench`: one run that measures, with wrk (Debian's `wrk`; the generator must not be the
 * bottleneck), a bare `node:http` JSON route as the platform's limit, then the public ping and the
 * three authenticated paths (session, repeat basic, bearer) on SQLite and on MariaDB/MySQL, each as a
 * ratio of the same database's ping, and an empty Nest app on Fastify as the framework's floor. Every response must be a 2xx: wrk's non-2xx count fails the run,
 * so a broken path cannot look fast.
 *
 * BENCH_SECONDS (10), BENCH_WARMUP_SECONDS (2), BENCH_CONNECTIONS (32), BENCH_THREADS (1),
 * BENCH_DATABASES ("sqlite mysql"), BENCH_MYSQL_URL (mysql://root@127.0.0.1:3306). With MariaDB the run ends with the same rows under WEB_CONCURRENCY=2 ("mysql x2").
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const THREADS = Number(process.env.BENCH_THREADS ?? 1);
const DATABASES = (process.env.BENCH_DATABASES ?? 'sqlite mysql').split(/\s+/).filter(Boolean);

interface Row {
  label: string;
  rps: number;
  p50: string;
  p99: string;
  ratio?: number;
}

function wrk(url: string, headers: Record<string, string>, seconds: number): { rps: number; p50: string; p99: string } {
  const args = ['-t', String(THREADS), '-c', String(CONNECTIONS), '-d', `${seconds}s`, '--latency'];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}: ${v}`);
  args.push(url);
  const out = spawnSync('wrk', args, { encoding: 'utf8' });
  if (out.error) throw new Error(`wrk could not run (${out.error.message}); install it with: apt-get install wrk`);
  const text = out.stdout;
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(text);
  if (non2xx) throw new Error(`${url}: ${non2xx[1]} responses were not 2xx\n${text}`);
  const errors = /Socket errors: (.*)/.exec(text);
  if (errors) throw new Error(`${url}: socket errors (${errors[1]})\n${text}`);
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(text);
  if (!rps) throw new Error(`unexpected wrk output:\n${text}${out.stderr}`);
  const pct = (p: string) => new RegExp(`^\\s+${p}%\\s+(\\S+)`, 'm').exec(text)?.[1] ?? '?';
  return { rps: Number(rps[1]), p50: pct('50'), p99: pct('99') };
}

function measure(label: string, url: string, headers: Record<string, string> = {}): Row {
  if (WARMUP > 0) wrk(url, headers, WARMUP);
  return { label, ...wrk(url, headers, SECONDS) };
}

async function benchDatabase(kind: string, workers = 1): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const mysql = kind === 'mysql' ? await mysqlDatabase() : null;
  const env: Record<string, string> = { HOST: '127.0.0.1', PORT: '0', DATA_DIR: dir, ADMIN_PASSWORD, LOG_LEVEL: 'warn' };
  if (mysql) env.DATABASE_URL = mysql.url;
  if (workers > 1) env.WEB_CONCURRENCY = String(workers);
  const { url, child } = await startProcess([join(__dirname, '..', 'src', 'main.js')], env, /"event":"listening","url":"(http:\/\/[^"]+?)\/"/);
  try {
    const basicHeader = { Authorization: 'Basic ' + Buffer.from(`admin:${ADMIN_PASSWORD}`).toString('base64') };
    const me = `${url}/api/v2/me/`;
    const label = workers > 1 ? `${kind} x${workers}` : kind;
    const ping = measure(`${label}: GET /api/v2/ping/`, `${url}/api/v2/ping/`);
    const rows = [
      ping,
      measure(`${label}: session GET /api/v2/me/`, me, { Cookie: await sessionCookie(url) }),
      measure(`${label}: basic (repeat) GET /api/v2/me/`, me, basicHeader),
      measure(`${label}: bearer GET /api/v2/me/`, me, { Authorization: `Bearer ${await personalToken(url, basicHeader)}` }),
    ];
    for (const row of rows) row.ratio = row.rps / ping.rps;
    return rows;
  } finally {
    await stop(child);
    await mysql?.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One row for a reference server of bench/ (it prints "listening <url>"), started and stopped around it. */
async function measureServer(label: string, script: string): Promise<Row> {
  const server = await startProcess([join(__dirname, script)], {}, /listening (http:\/\/\S+)/);
  try {
    return measure(label, `${server.url}/`);
  } finally {
    await stop(server.child);
  }
}

async function main(): Promise<void> {
  const bareRow = await measureServer('bare node:http JSON route', 'bare-server.js');
  const nestRow = await measureServer('empty Nest app on Fastify (floor)', 'empty-nest-server.js');
  const rows: Row[] = [bareRow, nestRow];
  for (const kind of DATABASES) rows.push(...(await benchDatabase(kind)));
  // The gain per core: the same MariaDB rows with two server processes (WEB_CONCURRENCY=2, node:cluster).
  if (DATABASES.includes('mysql')) rows.push(...(await benchDatabase('mysql', 2)));
  console.log(`wrk -t${THREADS} -c${CONNECTIONS}, ${WARMUP}s warm-up + ${SECONDS}s per row, one run; "x2" rows: WEB_CONCURRENCY=2`);
  console.log('path'.padEnd(42) + 'req/s'.padStart(10) + 'p50'.padStart(10) + 'p99'.padStart(10) + 'vs ping'.padStart(9) + 'vs bare'.padStart(9));
  for (const r of rows) {
    console.log(
      r.label.padEnd(42) + r.rps.toFixed(0).padStart(10) + r.p50.padStart(10) + r.p99.padStart(10) +
        (r.ratio === undefined ? '' : r.ratio.toFixed(2)).padStart(9) + (r.rps / bareRow.rps).toFixed(3).padStart(9),
    );
  }
}

const scale = process.argv.indexOf('--scale');
(scale >= 0 ? import('./scale').then((m) => m.runScale(Number(process.argv[scale + 1]) || 1_000_000, DATABASES)) : main()).catch((err) => {
  console.error(err.message);
  process.exit(1);
});
