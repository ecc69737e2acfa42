// What GET /metrics exposes, in Prometheus text format (prom-client). One registry per app, not prom-client's
// global one: tests run several shims in one process, and each must count only its own requests.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export type RedisState = 'up' | 'down' | 'unconfigured';

export interface Metrics {
  readonly registry: Registry;
  /** One answered request: route is the matched pattern ('static', 'not_found', ... when no route matched). */
  request(route: string, method: string, status: number, seconds: number): void;
  searchCache(hit: boolean): void;
  searchMode(mode: string): void;
  rateLimit(allowed: boolean, store: 'redis' | 'memory'): void;
  redisState(state: RedisState): void;
  render(): Promise<{ contentType: string; body: string }>;
}

// Latency buckets from 1 ms (a cached read) to 10 s (a stalled client or a rebuild swap).
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createMetrics(options: { processMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry, prefix: 'catalog_' });
  const requests = new Counter({ name: 'catalog_http_requests_total', help: 'HTTP requests answered, by route pattern, method and status', labelNames: ['route', 'method', 'status'], registers: [registry] });
  const latency = new Histogram({ name: 'catalog_http_request_duration_seconds', help: 'Time from request to the end of the response, by route pattern and method', labelNames: ['route', 'method'], buckets: LATENCY_BUCKETS, registers: [registry] });
  const cache = new Counter({ name: 'catalog_search_cache_requests_total', help: 'Listing searches answered from the response cache (hit) or computed (miss)', labelNames: ['result'], registers: [registry] });
  const modes = new Counter({ name: 'catalog_search_requests_total', help: 'Listing searches by the Search-Mode they were answered with', labelNames: ['mode'], registers: [registry] });
  const limits = new Counter({ name: 'catalog_rate_limit_decisions_total', help: 'Rate-limit decisions, by outcome and by the store that made them (memory when Redis is down or unset)', labelNames: ['decision', 'store'], registers: [registry] });
  const redisUp = new Gauge({ name: 'catalog_redis_up', help: '1 while Redis is reachable, 0 while it is not (state is shared through it); absent when REDIS_URL is unset', registers: [registry] });
  const redisDown = new Counter({ name: 'catalog_redis_down_transitions_total', help: 'Times Redis went from reachable to unreachable', registers: [registry] });
  let lastRedis: RedisState = 'unconfigured';
  // Pre-set so a ratio and a rate can be computed from the first scrape.
  cache.inc({ result: 'hit' }, 0);
  cache.inc({ result: 'miss' }, 0);

  return {
    registry,
    request(route, method, status, seconds) {
      requests.inc({ route, method, status: String(status) });
      latency.observe({ route, method }, seconds);
    },
    searchCache(hit) {
      cache.inc({ result: hit ? 'hit' : 'miss' });
    },
    searchMode(mode) {
      modes.inc({ mode });
    },
    rateLimit(allowed, store) {
      limits.inc({ decision: allowed ? 'allowed' : 'limited', store });
    },
    redisState(state) {
      if (state === 'unconfigured') return;
      if (state === 'down' && lastRedis === 'up') redisDown.inc();
      lastRedis = state;
      redisUp.set(state === 'up' ? 1 : 0);
    },
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
