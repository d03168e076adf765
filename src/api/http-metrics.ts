/**
 * Request counts and latencies of the HTTP API, and the response cache's hits and misses. Recording a request
 * costs a few map lookups and additions, no allocation once its route, method and status have been seen; the
 * samples are built only when Prometheus scrapes.
 */
import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';

/** Latency buckets in seconds: the read path answers in well under a millisecond from the cache. */
const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5] as const;

/** The route label of a request no route matched. */
const UNMATCHED_ROUTE = 'unmatched';

interface Series {
  readonly labels: { readonly method: string; readonly route: string; readonly status: string };
  count: number;
  sum: number;
  /** Observations per bucket, not cumulative; the last slot counts those above every bound. */
  readonly buckets: Float64Array;
}

interface Sample {
  readonly metricName?: string;
  readonly labels: Record<string, string | number>;
  readonly value: number;
}

/** The face prom-client's registry needs of a metric to print it. */
interface ScrapedMetric {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'histogram';
  readonly aggregator: 'sum';
  get(): Promise<{ name: string; help: string; type: string; aggregator: 'sum'; values: Sample[] }>;
}

/** How often the order routes answered from their cache, and how often they had to read the store. */
export interface ResponseCacheCounts {
  hits: number;
  misses: number;
}

export class HttpMetrics {
  readonly cache: ResponseCacheCounts = { hits: 0, misses: 0 };
  private readonly series = new Map<string, Map<string, Map<number, Series>>>();

  record(route: string, method: string, status: number, seconds: number): void {
    let byMethod = this.series.get(route);
    if (byMethod === undefined) this.series.set(route, (byMethod = new Map<string, Map<number, Series>>()));
    let byStatus = byMethod.get(method);
    if (byStatus === undefined) byMethod.set(method, (byStatus = new Map<number, Series>()));
    let series = byStatus.get(status);
    if (series === undefined) {
      series = {
        labels: { method, route, status: String(status) },
        count: 0,
        sum: 0,
        buckets: new Float64Array(BUCKETS.length + 1),
      };
      byStatus.set(status, series);
    }
    series.count += 1;
    series.sum += seconds;
    let bucket = 0;
    while (bucket < BUCKETS.length && seconds > BUCKETS[bucket]!) bucket += 1;
    series.buckets[bucket]! += 1;
  }

  /** Records every answered request of `app`; register before the routes. */
  observe(app: FastifyInstance): void {
    app.addHook('onResponse', (request, reply, done) => {
      this.record(
        request.routeOptions.url ?? UNMATCHED_ROUTE,
        request.method,
        reply.statusCode,
        reply.elapsedTime / 1000,
      );
      done();
    });
  }

  register(registry: Registry): void {
    const metrics: ScrapedMetric[] = [
      scraped('lnswap_http_requests_total', 'HTTP requests answered, by method, route and status', 'counter', () =>
        this.allSeries().map((series) => ({ labels: series.labels, value: series.count })),
      ),
      scraped(
        'lnswap_http_request_duration_seconds',
        'HTTP request latency, by method, route and status',
        'histogram',
        () => this.allSeries().flatMap(histogramSamples),
      ),
      scraped('lnswap_response_cache_hits_total', 'Order answers served from the response cache', 'counter', () => [
        { labels: {}, value: this.cache.hits },
      ]),
      scraped('lnswap_response_cache_misses_total', 'Order answers read from the store', 'counter', () => [
        { labels: {}, value: this.cache.misses },
      ]),
    ];
    // prom-client prints any object with its metrics' face; these are built at scrape time from the counts above.
    for (const metric of metrics)
      registry.registerMetric(metric as unknown as Parameters<Registry['registerMetric']>[0]);
  }

  private allSeries(): Series[] {
    return [...this.series.values()].flatMap((byMethod) =>
      [...byMethod.values()].flatMap((byStatus) => [...byStatus.values()]),
    );
  }
}

function scraped(name: string, help: string, type: ScrapedMetric['type'], values: () => Sample[]): ScrapedMetric {
  return {
    name,
    help,
    type,
    aggregator: 'sum',
    get: async () => ({ name, help, type, aggregator: 'sum', values: values() }),
  };
}

function histogramSamples(series: Series): Sample[] {
  const samples: Sample[] = [];
  let cumulative = 0;
  BUCKETS.forEach((bound, index) => {
    cumulative += series.buckets[index]!;
    samples.push({
      metricName: 'lnswap_http_request_duration_seconds_bucket',
      labels: { ...series.labels, le: bound },
      value: cumulative,
    });
  });
  samples.push({
    metricName: 'lnswap_http_request_duration_seconds_bucket',
    labels: { ...series.labels, le: '+Inf' },
    value: series.count,
  });
  samples.push({ metricName: 'lnswap_http_request_duration_seconds_sum', labels: series.labels, value: series.sum });
  samples.push({
    metricName: 'lnswap_http_request_duration_seconds_count',
    labels: series.labels,
    value: series.count,
  });
  return samples;
}
