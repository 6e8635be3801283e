import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SampledLog } from './sampled-log';

describe('SampledLog', () => {
  it('logs once a minute per key and counts what it folded', () => {
    const lines: Record<string, unknown>[] = [];
    const log = new SampledLog({ log: (e: Record<string, unknown>) => lines.push(e) } as never);
    log.log('a', { event: 'x' }, 0);
    log.log('a', { event: 'x' }, 1000);
    log.log('b', { event: 'y' }, 1000);
    log.log('a', { event: 'x' }, 2000);
    log.log('a', { event: 'x' }, 61_000);
    assert.deepEqual(lines.map((l) => [l.event, l.requests_since_last]), [['x', 1], ['y', 1], ['x', 3]]);
  });
});
