import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Histogram, Registry } from 'prom-client';
import { RequestLatency } from './request-latency';

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

describe('RequestLatency', () => {
  it('renders exactly what prom-client’s Histogram renders for the same observations', async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const latency = new RequestLatency(ours, BUCKETS);
    const histogram = new Histogram({ name: 'svc_http_request_duration_seconds', help: 'HTTP request latency', labelNames: ['method', 'route', 'status'], buckets: BUCKETS, registers: [theirs] });
    // Values on, just under and just over every bound, past the last one, and zero; several series.
    const values = [0, ...BUCKETS.flatMap((b) => [b, b * 0.999, b * 1.001]), 3, 100];
    const routes: [string, string, number][] = [['GET', '/api/v2/ping', 200], ['POST', '/api/login', 302], ['GET', 'unmatched', 404], ['GET', '/api/v2/ping', 503]];
    values.forEach((v, i) => {
      const [method, route, status] = routes[i % routes.length];
      latency.record(method, route, status, v);
      histogram.observe({ method, route, status: String(status) }, v);
    });
    assert.equal(await ours.metrics(), await theirs.metrics());
    assert.deepEqual(await ours.getMetricsAsJSON(), await theirs.getMetricsAsJSON());
    assert.match(await ours.metrics(), /svc_http_request_duration_seconds_bucket\{le="0\.001",method="GET",route="\/api\/v2\/ping",status="200"\} 1\n/);
  });

  it('forgets every series on reset, as prom-client does', async () => {
    const registry = new Registry();
    const latency = new RequestLatency(registry, BUCKETS);
    latency.record('GET', '/api/v2/ping', 200, 0.002);
    latency.reset();
    assert.doesNotMatch(await registry.metrics(), /_count/);
  });
});
