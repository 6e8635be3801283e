import assert from 'node:assert/strict';
import { executionAsyncResource } from 'node:async_hooks';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { keptTick } from './tick-shape';

/** A later tick's resource, as tick-shape.ts takes it. */
function nextTickResource(): Promise<object> {
  return new Promise((resolve) => process.nextTick(() => resolve(executionAsyncResource())));
}

describe('tick-shape', () => {
  it("keeps one of Node.js's own ticks: the object nextTick built, with its async ids, callback and args", async () => {
    await nextTickResource();
    const tick = keptTick();
    assert.ok(tick, 'a tick is kept once the first tick ran');
    assert.deepEqual(Object.keys(tick), ['callback', 'args']);
    const symbols = Object.getOwnPropertySymbols(tick).map((s) => s.description);
    assert.ok(symbols.includes('async_id_symbol') && symbols.includes('trigger_async_id_symbol'), `its keys: ${symbols.join(', ')}`);
    assert.notEqual(tick, await nextTickResource(), 'later ticks are new objects');
  });

  it('later ticks, after full collections, still have the kept tick’s hidden class (V8 natives, in a child process)', () => {
    // The premise of the module: while the kept tick lives, nextTick keeps building ticks on the same map.
    const script = `
      const { keptTick } = require(${JSON.stringify(require.resolve('./tick-shape'))});
      const { executionAsyncResource } = require('node:async_hooks');
      process.nextTick(() => {
        for (let i = 0; i < 3; i++) gc();
        process.nextTick(() => process.stdout.write(String(%HaveSameMap(keptTick(), executionAsyncResource()))));
      });`;
    const out = execFileSync(process.execPath, ['--expose-gc', '--allow-natives-syntax', '-e', script], { encoding: 'utf8' });
    assert.equal(out, 'true');
  });
});
