// /metrics counts requests in plain numbers on the request path and hands them to prom-client when scraped
// (server/ops/metrics.ts). What it renders must be what prom-client's own Counter and Histogram render for the
// same requests: the same series, cumulative buckets, +Inf, sum and count, and the pre-set zeros.
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../server/ops/metrics.ts';

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The metric lines of a text exposition, sorted (series order within a metric is not part of the format). */
function lines(text: string, prefix: string): string[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith(prefix))
    .sort();
}

describe('request metrics', () => {
  it('render as prom-client renders the same observations', async () => {
    const metrics = createMetrics({ processMetrics: false });
    const reference = new Registry();
    const requests = new Counter({ name: 'catalog_http_requests_total', help: 'h', labelNames: ['route', 'method', 'status'], registers: [reference] });
    const latency = new Histogram({
      name: 'catalog_http_request_duration_seconds',
      help: 'h',
      labelNames: ['route', 'method'],
      buckets: BUCKETS,
      registers: [reference],
    });
    const routes = ['/api/v1/listings', '/api/v1/listings/:id', 'static', 'not_found'];
    const methods = ['GET', 'HEAD', 'POST'];
    const statuses = [200, 304, 404, 429];
    // Values on and around every bound, and beyond the largest, so each bucket's edge is exercised.
    const values = [0, 0.0004, ...BUCKETS, ...BUCKETS.map((b) => b * 1.0001), 30];
    let n = 0;
    for (const seconds of values) {
      for (let k = 0; k < 3; k++) {
        const route = routes[n % routes.length]!;
        const method = methods[n % methods.length]!;
        const status = statuses[(n >> 2) % statuses.length]!;
        n++;
        metrics.request(route, method, status, seconds);
        requests.inc({ route, method, status: String(status) });
        latency.observe({ route, method }, seconds);
      }
    }
    const ours = (await metrics.render()).body;
    const theirs = await reference.metrics();
    const requestLines = lines(ours, 'catalog_http_requests_total');
    expect(requestLines.length).toBeGreaterThan(10);
    expect(requestLines).toEqual(lines(theirs, 'catalog_http_requests_total'));
    const latencyLines = lines(ours, 'catalog_http_request_duration_seconds');
    expect(latencyLines.length).toBe(12 * (BUCKETS.length + 3));
    expect(latencyLines).toEqual(lines(theirs, 'catalog_http_request_duration_seconds'));
    expect(ours).toContain('# TYPE catalog_http_request_duration_seconds histogram');
    // Scraping twice gives the same totals (a scrape reads the counts, it does not move them).
    expect(lines((await metrics.render()).body, 'catalog_http_')).toEqual(lines(ours, 'catalog_http_'));
    // And the JSON form splays the labels as prom-client's does.
    const json = await metrics.registry.getMetricsAsJSON();
    const histogram = json.find((metric) => metric.name === 'catalog_http_request_duration_seconds')!;
    expect(histogram.values[0]).toEqual({
      labels: { le: 0.001, route: '/api/v1/listings', method: 'GET' },
      value: expect.any(Number),
      metricName: 'catalog_http_request_duration_seconds_bucket',
    });
  });

  it('count cache results, search modes and rate-limit decisions, with the cache pair shown from the start', async () => {
    const metrics = createMetrics({ processMetrics: false });
    expect(lines((await metrics.render()).body, 'catalog_search_cache')).toEqual([
      'catalog_search_cache_requests_total{result="hit"} 0',
      'catalog_search_cache_requests_total{result="miss"} 0',
    ]);
    metrics.searchCache(true);
    metrics.searchCache(false);
    metrics.searchCache(false);
    metrics.searchMode('keyword');
    metrics.searchMode('hybrid');
    metrics.searchMode('keyword');
    metrics.rateLimit(true, 'memory');
    metrics.rateLimit(true, 'redis');
    metrics.rateLimit(false, 'redis');
    metrics.rateLimit(true, 'memory');
    const text = (await metrics.render()).body;
    expect(lines(text, 'catalog_search_cache')).toEqual([
      'catalog_search_cache_requests_total{result="hit"} 1',
      'catalog_search_cache_requests_total{result="miss"} 2',
    ]);
    expect(lines(text, 'catalog_search_requests')).toEqual([
      'catalog_search_requests_total{mode="hybrid"} 1',
      'catalog_search_requests_total{mode="keyword"} 2',
    ]);
    expect(lines(text, 'catalog_rate_limit')).toEqual([
      'catalog_rate_limit_decisions_total{decision="allowed",store="memory"} 2',
      'catalog_rate_limit_decisions_total{decision="allowed",store="redis"} 1',
      'catalog_rate_limit_decisions_total{decision="limited",store="redis"} 1',
    ]);
  });
});
