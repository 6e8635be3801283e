import { Histogram, MetricObjectWithValues, MetricValueWithName, Registry } from 'prom-client';

type LatencyLabel = 'method' | 'route' | 'status';
const NAME = 'svc_http_request_duration_seconds';
const HELP = 'HTTP request latency';

interface RenderedValue {
  labels: { le?: number | string };
  sharedLabels: Record<LatencyLabel, string>;
  value: number;
  metricName: string;
  exemplar: null | undefined;
}

interface Rendered {
  name: string;
  help: string;
  type: 'histogram';
  values: RenderedValue[];
  aggregator: 'sum';
}

interface Series {
  readonly labels: Record<LatencyLabel, string>;
  /** Observations per bucket (not cumulative): counts[i] fell in (bounds[i-1], bounds[i]]. */
  readonly counts: number[];
  sum: number;
  count: number;
}

/**
 * `svc_http_request_duration_seconds`, observed once per request: prom-client's Histogram, counted by the
 * service. Its `observe` builds, validates and hashes the three labels on every call (about 0.4 µs here,
 * measured in a loop; 4 % of a ping's instructions with callgrind, issue 43): this class finds a series with
 * three Map lookups instead, and renders what prom-client's `get()` renders (same names, labels, cumulative
 * buckets, `+Inf`, `_sum`, `_count`; `request-latency.spec.ts` compares the two texts).
 */
export class RequestLatency extends Histogram<LatencyLabel> {
  private readonly bounds: readonly number[];
  private readonly byRoute = new Map<string, Map<string, Map<number, Series>>>();
  /** Every series, in the order they were first seen (prom-client's order). */
  private series: Series[] = [];

  constructor(registry: Registry, buckets: number[]) {
    super({ name: NAME, help: HELP, labelNames: ['method', 'route', 'status'], buckets, registers: [registry] });
    this.bounds = [...buckets].sort((a, b) => a - b);
  }

  record(method: string, route: string, status: number, seconds: number): void {
    // route → method → status: strings the router and the HTTP parser hand over again and again (their hashes
    // are kept), and a small integer; no key is built per request.
    let methods = this.byRoute.get(route);
    if (!methods) this.byRoute.set(route, (methods = new Map()));
    let statuses = methods.get(method);
    if (!statuses) methods.set(method, (statuses = new Map()));
    let series = statuses.get(status);
    if (!series) {
      series = { labels: { method, route, status: String(status) }, counts: this.bounds.map(() => 0), sum: 0, count: 0 };
      statuses.set(status, series);
      this.series.push(series);
    }
    // The first bound the value does not exceed (prom-client's `le`); past the last, only +Inf counts it.
    let bucket = 0;
    while (bucket < this.bounds.length && seconds > this.bounds[bucket]) bucket++;
    if (bucket < this.bounds.length) series.counts[bucket]++;
    series.sum += seconds;
    series.count++;
  }

  /**
   * What the registry renders (prom-client's registry prefers `getForPromString` to `get`): per series, the
   * cumulative buckets with `le`, `+Inf`, `_sum` and `_count`, the series' labels shared, in prom-client's shape.
   */
  async getForPromString(): Promise<Rendered> {
    const values: RenderedValue[] = [];
    for (const { labels, counts, sum, count } of this.series) {
      let cumulative = 0;
      this.bounds.forEach((le, i) => {
        cumulative += counts[i];
        values.push({ labels: { le }, sharedLabels: labels, value: cumulative, metricName: `${NAME}_bucket`, exemplar: null });
      });
      values.push({ labels: { le: '+Inf' }, sharedLabels: labels, value: count, metricName: `${NAME}_bucket`, exemplar: null });
      values.push({ labels: {}, sharedLabels: labels, value: sum, metricName: `${NAME}_sum`, exemplar: undefined });
      values.push({ labels: {}, sharedLabels: labels, value: count, metricName: `${NAME}_count`, exemplar: undefined });
    }
    return { name: NAME, help: HELP, type: 'histogram', values, aggregator: 'sum' };
  }

  /** The JSON form (`getMetricsAsJSON`, the cluster aggregator): each value with its labels merged, as prom-client's. */
  override async get(): Promise<MetricObjectWithValues<MetricValueWithName<LatencyLabel>>> {
    const rendered = await this.getForPromString();
    const values = rendered.values.map(({ labels, sharedLabels, ...rest }) => ({ ...rest, labels: { ...labels, ...sharedLabels } }));
    return { ...rendered, values } as unknown as MetricObjectWithValues<MetricValueWithName<LatencyLabel>>;
  }

  override reset(): void {
    super.reset();
    // prom-client's constructor calls reset() before this class's fields exist.
    this.byRoute?.clear();
    this.series = [];
  }
}
