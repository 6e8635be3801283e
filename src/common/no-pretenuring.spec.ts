import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';

/**
 * V8's pretenuring feedback in a child process that keeps every object of one literal (as start-up keeps its
 * objects): the lines `--trace-pretenuring-statistics` prints for the allocation sites it weighed.
 */
function pretenuringFeedback(loadModuleFirst: boolean): string[] {
  const script = `
    ${loadModuleFirst ? `require(${JSON.stringify(require.resolve('./no-pretenuring'))});` : ''}
    function make(i) { return { i, a: null, b: null }; }
    const kept = [];
    for (let i = 0; i < 300000; i++) kept.push(make(i));
    process.stdout.write('kept ' + kept.length + '\\n');`;
  const out = execFileSync(process.execPath, ['--trace-pretenuring', '--trace-pretenuring-statistics', '-e', script], { encoding: 'utf8' });
  assert.match(out, /kept 300000/);
  return out.split('\n').filter((line) => line.includes('pretenuring: AllocationSite('));
}

describe('no-pretenuring', () => {
  it('without the module, V8 weighs a literal whose objects all survive for the old generation', () => {
    // The control: if this stops holding (V8 dropped or renamed its pretenuring), the next test proves nothing.
    const feedback = pretenuringFeedback(false);
    assert.ok(feedback.length > 0, 'V8 printed pretenuring feedback for the kept literal');
    assert.match(feedback.join('\n'), /\(created, found, ratio\) \(\d+, \d+, 1\.0+\)/);
  });

  it('loaded first, it turns the feedback off: no site is weighed, so none is ever switched to the old generation', () => {
    assert.deepEqual(pretenuringFeedback(true), []);
  });

  it("is in effect in the service's own process before its modules load (main.js, stopped by a bad PORT)", () => {
    // Loading the service's modules alone weighed 37 sites before main.ts imported the module first.
    const run = spawnSync(process.execPath, ['--trace-pretenuring', '--trace-pretenuring-statistics', require.resolve('../main')], {
      encoding: 'utf8',
      env: { ...process.env, PORT: 'not-a-port' },
    });
    assert.match(run.stderr, /PORT must be an integer/);
    assert.equal(run.status, 2);
    assert.deepEqual(run.stdout.split('\n').filter((line) => line.includes('pretenuring: AllocationSite(')), []);
  });
});
