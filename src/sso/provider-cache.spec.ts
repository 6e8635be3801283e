import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProviderCache } from './provider-cache';

describe('ProviderCache (one build per provider and settings, issue 33)', () => {
  it('builds once per fingerprint and rebuilds when the settings change', async () => {
    const cache = new ProviderCache<string>();
    let builds = 0;
    const build = (value: string) => async () => {
      builds++;
      return value;
    };
    assert.equal(await cache.get('corp', 'v1', ['corp'], build('first')), 'first');
    assert.equal(await cache.get('corp', 'v1', ['corp'], build('again')), 'first');
    assert.equal(builds, 1);
    assert.equal(await cache.get('corp', 'v2', ['corp'], build('second')), 'second');
    assert.equal(builds, 2);
  });

  it('drops a provider removed from the settings at the next use of any provider', async () => {
    const cache = new ProviderCache<string>();
    await cache.get('corp', 'v1', ['corp', 'okta'], async () => 'corp');
    await cache.get('okta', 'v1', ['corp', 'okta'], async () => 'okta');
    assert.deepEqual(cache.names().sort(), ['corp', 'okta']);
    await cache.get('okta', 'v1', ['okta'], async () => 'unused');
    assert.deepEqual(cache.names(), ['okta']);
  });

  it('forgets a failed build, so the next use tries again', async () => {
    const cache = new ProviderCache<string>();
    await assert.rejects(cache.get('corp', 'v1', ['corp'], async () => Promise.reject(new Error('discovery failed'))), /discovery failed/);
    assert.deepEqual(cache.names(), []);
    assert.equal(await cache.get('corp', 'v1', ['corp'], async () => 'ready'), 'ready');
  });
});
