import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SampledLog } from './sampled-log';

describe('SampledLog', () => {
  it('logs once a minute per key and counts what it folded', () => {
    const lines: Record<string, unknown>[] = [];
    const log = new SampledLog({ log: (e: Record<string, unknown>) => lines.push(e) } as never);
    let made = 0;
    const x = () => (made++, { event: 'x' });
    log.log('a', x, 0);
    log.log('a', x, 1000);
    log.log('b', () => ({ event: 'y' }), 1000);
    log.log('a', x, 2000);
    log.log('a', x, 61_000);
    assert.deepEqual(lines.map((l) => [l.event, l.requests_since_last]), [['x', 1], ['y', 1], ['x', 3]]);
    assert.equal(made, 2, 'a folded event is never made');
  });
});
