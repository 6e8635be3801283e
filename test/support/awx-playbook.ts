import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** One task's result as the `ansible.posix.json` callback reports it (changed, failed, msg, warnings, the module's own keys). */
export interface TaskResult {
  changed?: boolean;
  failed?: boolean;
  msg?: string;
  id?: number;
  status?: string;
  warnings?: string[];
  [key: string]: unknown;
}

/**
 * Runs `tasks` as one play of the `awx.awx` collection (Debian's `ansible-playbook`, on loopback) against the
 * service at `url` as `admin`, in the folder `dir` (its HOME and temp), and returns each task's result by name.
 */
export function playAwx(dir: string, url: string, adminPassword: string, tasks: object[]): Record<string, TaskResult> {
  const playbook = join(dir, `play-${Date.now()}.yml`);
  writeFileSync(playbook, JSON.stringify([{ hosts: 'localhost', gather_facts: false, collections: ['awx.awx'], tasks }]));
  const run = spawnSync('ansible-playbook', ['-i', 'localhost,', '-c', 'local', playbook], {
    encoding: 'utf8',
    timeout: 300000,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: dir,
      ANSIBLE_STDOUT_CALLBACK: 'ansible.posix.json',
      ANSIBLE_LOCAL_TEMP: join(dir, 'tmp'),
      ANSIBLE_PYTHON_INTERPRETER: '/usr/bin/python3',
      ANSIBLE_DEPRECATION_WARNINGS: 'false',
      CONTROLLER_HOST: url,
      CONTROLLER_USERNAME: 'admin',
      CONTROLLER_PASSWORD: adminPassword,
      CONTROLLER_VERIFY_SSL: 'false',
    },
  });
  assert.ok(run.stdout, `ansible-playbook printed nothing (is Debian's ansible installed?): ${run.error?.message ?? ''} ${run.stderr}`);
  const output = JSON.parse(run.stdout.slice(run.stdout.indexOf('{'))) as { plays: { tasks: { task: { name: string }; hosts: Record<string, TaskResult> }[] }[] };
  return Object.fromEntries(output.plays[0].tasks.map((t) => [t.task.name, t.hosts.localhost]));
}
