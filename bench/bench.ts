import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dryRunRow } from './maps-dry-run';
import { ADMIN_PASSWORD, FLOOR_TOKEN, mysqlDatabase, personalToken, request, roundOrders, sessionCookie, startProcess, stop } from './support';

/**
 * `npm run bench`: one run that measures, with wrk (Debian's `wrk`; the generator must not be the
 * bottleneck), a bare `node:http` JSON route as the platform's limit, an empty Nest app on Fastify as the
 * framework's floor (and the same app's /me/ page behind the card's bearer AuthGuard, with no database: the
 * most a row's ratio to ping can be under the card's packages; and behind a hand-written guard with no passport:
 * the most it can be on Nest at all), then the public ping and the three authenticated paths (session, repeat basic,
 * bearer) on SQLite and on MariaDB/MySQL, each as a ratio of the same database's ping. With MariaDB the
 * run ends with the same rows under WEB_CONCURRENCY=2 ("mysql x2"). Before it is measured, every row must
 * answer 200 (and the authenticated rows as the admin); during the run, wrk's count of 4xx/5xx answers fails
 * it, so a broken path cannot look fast.
 *
 * Every server is started first and all rows are measured in interleaved rounds (each row for
 * SECONDS / ROUNDS in every round, the rows of a round in a random order: see BENCH_ORDER); each row
 * reports its median round, and each ratio is the median of the ratios within a round (a row against the
 * ping, the bare route or the empty Nest app measured seconds before or after it). On a shared machine
 * whose speed drifts over a minute, rows measured one after another compare different machines.
 *
 * BENCH_SECONDS (10 per row, in all), BENCH_ROUNDS (10), BENCH_WARMUP_SECONDS (2), BENCH_CONNECTIONS (32),
 * BENCH_THREADS (1), BENCH_DATABASES ("sqlite mysql"), BENCH_MYSQL_URL (mysql://root@127.0.0.1:3306).
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Math.max(1, Math.floor(Number(process.env.BENCH_ROUNDS ?? 10)) || 10);
const WARMUP = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const THREADS = Number(process.env.BENCH_THREADS ?? 1);
const DATABASES = (process.env.BENCH_DATABASES ?? 'sqlite mysql').split(/\s+/).filter(Boolean);
/**
 * BENCH_BASELINE: the dist/ folder of another build of the service (an older commit's `npm run build:test`):
 * its rows run beside this build's in the same interleaved rounds, labelled "base", so a change is measured
 * old against new on one machine in one run (issue 39).
 */
const BASELINE = process.env.BENCH_BASELINE;
const ROUND_SECONDS = Math.max(1, Math.round(SECONDS / ROUNDS));
/**
 * BENCH_ORDER: "shuffled" (the default) measures the rows of each round in a new random order, so no row is
 * always the first of its server or always follows the same other server's load; "fixed" keeps the listed
 * order (servers one after another, ping first in each), kept to compare with runs before issue 43's fourth
 * part. BENCH_SEED fixes the shuffle (the run prints the seed it used).
 */
const ORDER = process.env.BENCH_ORDER === 'fixed' ? 'fixed' : 'shuffled';
const SEED = Number(process.env.BENCH_SEED ?? Date.now() % 2 ** 31) >>> 0;

interface Sample {
  rps: number;
  p50: string;
  p99: string;
}

interface Target {
  label: string;
  url: string;
  headers: Record<string, string>;
  /** The ping row of the same server, which this row is a ratio of. */
  ping?: Target;
  /** What a correct answer's body contains (checked once before the run). */
  expect?: string;
  samples: Sample[];
}

/** One wrk run, asynchronous so the servers' output pipes keep draining while it runs. */
function wrk(target: Target, seconds: number): Promise<Sample> {
  const args = ['-t', String(THREADS), '-c', String(CONNECTIONS), '-d', `${seconds}s`, '--latency'];
  for (const [k, v] of Object.entries(target.headers)) args.push('-H', `${k}: ${v}`);
  args.push(target.url);
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    let stderr = '';
    child.stdout.on('data', (c) => (text += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.once('error', (err) => reject(new Error(`wrk could not run (${err.message}); install it with: apt-get install wrk`)));
    child.once('close', () => {
      const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(text);
      if (non2xx) return reject(new Error(`${target.url}: ${non2xx[1]} responses were not 2xx\n${text}`));
      const errors = /Socket errors: (.*)/.exec(text);
      if (errors) return reject(new Error(`${target.url}: socket errors (${errors[1]})\n${text}`));
      const rps = /Requests\/sec:\s+([\d.]+)/.exec(text);
      if (!rps) return reject(new Error(`unexpected wrk output:\n${text}${stderr}`));
      const pct = (p: string) => new RegExp(`^\\s+${p}%\\s+(\\S+)`, 'm').exec(text)?.[1] ?? '?';
      resolve({ rps: Number(rps[1]), p50: pct('50'), p99: pct('99') });
    });
  });
}

function median(target: Target): Sample {
  const sorted = [...target.samples].sort((a, b) => a.rps - b.rps);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

/** The median over rounds of this row's rate against another row's in the same round. */
function medianRatio(target: Target, base: Target): number {
  const ratios = target.samples.map((s, round) => s.rps / base.samples[round].rps).sort((a, b) => a - b);
  const mid = (ratios.length - 1) / 2;
  return (ratios[Math.floor(mid)] + ratios[Math.ceil(mid)]) / 2;
}

type Cleanup = () => Promise<void>;

/** The service on one database (and worker count): its ping and the three authenticated rows. */
async function serviceTargets(kind: string, workers: number, cleanups: Cleanup[], build = join(__dirname, '..'), tag = ''): Promise<Target[]> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  const mysql = kind === 'mysql' ? await mysqlDatabase(`_x${workers}${tag ? '_base' : ''}`) : null;
  if (mysql) cleanups.push(() => mysql.drop());
  const env: Record<string, string> = { HOST: '127.0.0.1', PORT: '0', DATA_DIR: dir, ADMIN_PASSWORD, LOG_LEVEL: 'warn' };
  if (mysql) env.DATABASE_URL = mysql.url;
  if (workers > 1) env.WEB_CONCURRENCY = String(workers);
  const { url, child } = await startProcess([join(build, 'src', 'main.js')], env, /"event":"listening","url":"(http:\/\/[^"]+?)\/"/);
  cleanups.push(() => stop(child));
  const basicHeader = { Authorization: 'Basic ' + Buffer.from(`admin:${ADMIN_PASSWORD}`).toString('base64') };
  const me = `${url}/api/v2/me/`;
  const label = `${tag}${workers > 1 ? `${kind} x${workers}` : kind}`;
  const ping: Target = { label: `${label}: GET /api/v2/ping/`, url: `${url}/api/v2/ping/`, headers: {}, samples: [] };
  ping.ping = ping;
  const row = (name: string, headers: Record<string, string>): Target => ({
    label: `${label}: ${name} GET /api/v2/me/`, url: me, headers, ping, samples: [], expect: '"username":"admin"',
  });
  return [
    ping,
    row('session', { Cookie: await sessionCookie(url) }),
    row('basic (repeat)', basicHeader),
    row('bearer', { Authorization: `Bearer ${await personalToken(url, basicHeader)}` }),
  ];
}

/** A reference server of bench/ (it prints "listening <url>"). */
async function referenceTarget(label: string, script: string, cleanups: Cleanup[]): Promise<Target> {
  const server = await startProcess([join(__dirname, script)], {}, /listening (http:\/\/\S+)/);
  cleanups.push(() => stop(server.child));
  return { label, url: `${server.url}/`, headers: {}, samples: [] };
}

async function main(): Promise<void> {
  const cleanups: Cleanup[] = [];
  try {
    const bare = await referenceTarget('bare node:http JSON route', 'bare-server.js', cleanups);
    const floor = await referenceTarget('empty Nest app on Fastify (floor)', 'empty-nest-server.js', cleanups);
    // The floor app's /me/-sized page, public, behind the card's bearer chain with no database (the most an
    // authenticated row's ratio to ping can be under the card's packages), and behind a plain guard (on Nest at all).
    const floorRow = (label: string, path: string, headers: Record<string, string>): Target => ({
      label, url: `${floor.url}${path}`, headers, ping: floor, expect: '"username":"admin"', samples: [],
    });
    const targets = [
      bare, floor,
      floorRow('floor: the /me/ page, public', 'page', {}),
      floorRow('floor: the /me/ page, card bearer AuthGuard', 'me', { Authorization: `Bearer ${FLOOR_TOKEN}` }),
      floorRow('floor: the /me/ page, plain guard, no passport', 'me-plain', { Authorization: `Bearer ${FLOOR_TOKEN}` }),
    ];
    for (const kind of DATABASES) {
      if (BASELINE) targets.push(...(await serviceTargets(kind, 1, cleanups, BASELINE, 'base ')));
      targets.push(...(await serviceTargets(kind, 1, cleanups)));
    }
    // The gain per core: the same MariaDB rows with two server processes (WEB_CONCURRENCY=2, node:cluster).
    if (DATABASES.includes('mysql')) targets.push(...(await serviceTargets('mysql', 2, cleanups)));
    for (const target of targets) await answersCorrectly(target);
    if (WARMUP > 0) for (const target of targets) await wrk(target, WARMUP);
    for (const order of roundOrders(targets, ROUNDS, ORDER, SEED)) for (const target of order) target.samples.push(await wrk(target, ROUND_SECONDS));
    report(targets, bare, floor);
    // Issue 42: the maps' dry run over 1 000 stored logins, on each database.
    for (const kind of DATABASES) {
      const row = await dryRunRow(kind, join(__dirname, '..'));
      console.log(`${row.label.padEnd(64)} median ${row.median.toFixed(0)} ms, slowest ${row.slowest.toFixed(0)} ms (${row.changed} users changed)`);
    }
  } finally {
    // Every server is stopped and every database dropped, even when one clean-up fails.
    const failures: unknown[] = [];
    for (const cleanup of cleanups.reverse()) await cleanup().catch((err) => failures.push(err));
    if (failures.length) console.error(`clean-up failed: ${failures.map((e) => (e as Error).message).join('; ')}`);
  }
}

/** wrk counts a redirect as a success: each row is asked once first, and must answer 200 (as the admin). */
async function answersCorrectly(target: Target): Promise<void> {
  const res = await request(target.url, { headers: target.headers });
  if (res.status !== 200 || (target.expect && !res.body.includes(target.expect))) {
    throw new Error(`${target.label}: answered ${res.status} ${res.body.slice(0, 200)}`);
  }
}

function report(targets: Target[], bare: Target, floor: Target): void {
  console.log(
    `wrk -t${THREADS} -c${CONNECTIONS}; ${WARMUP}s warm-up, then ${ROUNDS} interleaved rounds of ${ROUND_SECONDS}s per row ` +
      `(${ORDER === 'fixed' ? 'in the listed order' : `each in a random order, BENCH_SEED=${SEED}`}), one run; ` +
      'req/s and latency: the median round (spread: slowest and fastest round); ratios: the median of the ratios within a round; ' +
      'vs floor: against the empty Nest app (what the service adds to the framework); "x2" rows: WEB_CONCURRENCY=2',
  );
  console.log('path'.padEnd(48) + 'req/s'.padStart(10) + 'p50'.padStart(10) + 'p99'.padStart(10) + 'vs ping'.padStart(9) + 'vs bare'.padStart(9) + 'vs floor'.padStart(9) + '  spread');
  for (const target of targets) {
    const m = median(target);
    const ratio = target.ping ? medianRatio(target, target.ping).toFixed(2) : '';
    const rates = target.samples.map((s) => s.rps);
    console.log(
      target.label.padEnd(48) + m.rps.toFixed(0).padStart(10) + m.p50.padStart(10) + m.p99.padStart(10) + ratio.padStart(9) +
        medianRatio(target, bare).toFixed(3).padStart(9) + (target === bare ? '' : medianRatio(target, floor).toFixed(3)).padStart(9) + `  ${Math.min(...rates).toFixed(0)}–${Math.max(...rates).toFixed(0)}`,
    );
  }
}

const scale = process.argv.indexOf('--scale');
(scale >= 0 ? import('./scale').then((m) => m.runScale(Number(process.argv[scale + 1]) || 1_000_000, DATABASES)) : main()).catch((err) => {
  console.error(err.message);
  process.exit(1);
});
