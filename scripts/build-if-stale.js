#!/usr/bin/env node
'use strict';
/**
 * Builds dist/ (`nest build`: the Nest CLI with nest-cli.json, which compiles tsconfig.build.json) only when a source is newer than the last build (issue 34):
 * `npm start` and `npm run manage` used to compile for 30 s before every run. The last build is
 * dist/.build-stamp; `--mark` only writes it (after a build made some other way, e.g. npm test's).
 */
const { spawnSync } = require('node:child_process');
const { existsSync, readdirSync, statSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const stamp = join(root, 'dist', '.build-stamp');
const SOURCES = ['src', 'bench', 'ormconfig.ts', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];

/** The newest modification time under `path` (a file or a folder), in ms. */
function newest(path) {
  if (!existsSync(path)) return 0;
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  return readdirSync(path).reduce((latest, name) => Math.max(latest, newest(join(path, name))), info.mtimeMs);
}

if (process.argv.includes('--mark')) {
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
  process.exit(0);
}
const built = existsSync(stamp) && existsSync(join(root, 'dist', 'src', 'main.js')) ? statSync(stamp).mtimeMs : 0;
const changed = Math.max(...SOURCES.map((s) => newest(join(root, s))));
if (built && changed <= built) process.exit(0);
process.stderr.write(built ? 'sources changed since the last build: building…\n' : 'no build yet: building…\n');
const tsc = spawnSync(process.execPath, [require.resolve('@nestjs/cli/bin/nest.js'), 'build'], { cwd: root, stdio: 'inherit' });
if (tsc.status !== 0) process.exit(tsc.status ?? 1);
writeFileSync(stamp, `${new Date().toISOString()}\n`);
