import { readFileSync } from 'node:fs';

/**
 * `node dist/bench/profile-summary.js FILE.cpuprofile`: where a `node --cpu-prof` run of the service spent
 * its samples, by area (our code, Nest, Fastify, TypeORM, the database driver, Node itself, GC, idle) and the
 * ten functions of ours with the most self time. bench/profile-hot-paths.sh takes the profiles.
 */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const AREAS: [string, RegExp][] = [
  ['idle', /\(idle\)/],
  ['gc', /\(garbage collector\)/],
  ['our code', /dist\/src\//],
  ['database driver', /better-sqlite3|mysql2/],
  ['fastify', /node_modules\/(fastify|@fastify|find-my-way|light-my-request)/],
  ['nest', /node_modules\/@nestjs/],
  ['typeorm', /node_modules\/typeorm/],
  ['node', /node:|\(program\)|\(native\)|^\(anon\) :-1$/],
];

const profile = JSON.parse(readFileSync(process.argv[2], 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<string, number>();
let total = 0;
profile.samples.forEach((id, i) => {
  const frame = byId.get(id)!.callFrame;
  const key = `${frame.functionName || '(anon)'} ${frame.url.replace(/.*\/(node_modules|dist)\//, '$1/')}:${frame.lineNumber}`;
  const delta = profile.timeDeltas[i] ?? 0;
  total += delta;
  self.set(key, (self.get(key) ?? 0) + delta);
});
const areas = new Map<string, number>();
for (const [key, time] of self) {
  const area = AREAS.find(([, re]) => re.test(key))?.[0] ?? 'other';
  areas.set(area, (areas.get(area) ?? 0) + time);
}
const share = (time: number) => `${((100 * time) / total).toFixed(1)} %`;
console.log(`${(total / 1000).toFixed(0)} ms of samples`);
for (const [area, time] of [...areas].sort((a, b) => b[1] - a[1])) console.log(`${area.padEnd(16)} ${share(time)}`);
console.log('our code, most self time:');
for (const [key, time] of [...self].filter(([k]) => k.includes('dist/src/')).sort((a, b) => b[1] - a[1]).slice(0, 10)) console.log(`  ${share(time).padStart(7)}  ${key}`);
