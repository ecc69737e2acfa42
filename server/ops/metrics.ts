// What GET /metrics exposes, in Prometheus text format (prom-client). One registry per app, not prom-client's
// global one: tests run several shims in one process, and each must count only its own requests.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics, type HistogramConfiguration } from 'prom-client';

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

// Latency buckets from a cached read to a stalled client or a rebuild swap.
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Keys of the rate-limit tally, "<decision> <store>", made once (a key built per request would be a string to allocate and hash). */
const RATE_DECISION_KEYS = {
  allowed: { redis: 'allowed redis', memory: 'allowed memory' },
  limited: { redis: 'limited redis', memory: 'limited memory' },
} as const;

type RouteLabels = { route: string; method: string };

/**
 * One route and method's answers in plain numbers: counts by status and the latency histogram. The request path
 * records here, and prom-client reads the totals when /metrics is scraped. prom-client's own inc() and observe()
 * hash and validate the label set on every call, three times a request on the request path
 * (bench/records/2026-11-23-per-request-costs.md).
 */
class RouteSeries {
  readonly byStatus = new Map<number, number>();
  /** Answers per bucket, not cumulative; the last slot holds those above the largest bound. */
  readonly buckets = new Float64Array(LATENCY_BUCKETS.length + 1);
  sum = 0;
  count = 0;
  readonly labels: RouteLabels;

  constructor(labels: RouteLabels) {
    this.labels = labels;
  }

  record(status: number, seconds: number): void {
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
    let bucket = 0;
    while (bucket < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[bucket]!) bucket++;
    this.buckets[bucket]! += 1;
    this.sum += seconds;
    this.count += 1;
  }
}

/** Every route and method seen, by route then method: two lookups of strings the router and Node already hold. */
class RequestRecorder {
  readonly #routes = new Map<string, Map<string, RouteSeries>>();

  record(route: string, method: string, status: number, seconds: number): void {
    let methods = this.#routes.get(route);
    if (!methods) this.#routes.set(route, (methods = new Map()));
    let series = methods.get(method);
    if (!series) methods.set(method, (series = new RouteSeries({ route, method })));
    series.record(status, seconds);
  }

  *series(): Iterable<RouteSeries> {
    for (const methods of this.#routes.values()) yield* methods.values();
  }
}

/** What prom-client's get() gives at run time; its typings declare `type` a numeric enum, while it is the string. */
type HistogramExport = Awaited<ReturnType<Histogram['get']>>;

/** The latency histogram as prom-client renders it, from the recorder's numbers rather than from observe(). */
class RecordedLatency extends Histogram<'route' | 'method'> {
  readonly #recorder: RequestRecorder;
  readonly #name: string;
  readonly #help: string;

  constructor(recorder: RequestRecorder, configuration: HistogramConfiguration<'route' | 'method'>) {
    super(configuration);
    this.#recorder = recorder;
    this.#name = configuration.name;
    this.#help = configuration.help;
  }

  override async get(): Promise<HistogramExport> {
    const bucketName = `${this.#name}_bucket`;
    const values: { labels: Record<string, string | number>; value: number; metricName: string }[] = [];
    for (const { labels, buckets, sum, count } of this.#recorder.series()) {
      let cumulative = 0;
      LATENCY_BUCKETS.forEach((le, index) => {
        cumulative += buckets[index]!;
        values.push({ labels: { le, ...labels }, value: cumulative, metricName: bucketName });
      });
      values.push({ labels: { le: '+Inf', ...labels }, value: count, metricName: bucketName });
      values.push({ labels, value: sum, metricName: `${this.#name}_sum` });
      values.push({ labels, value: count, metricName: `${this.#name}_count` });
    }
    return { name: this.#name, help: this.#help, type: 'histogram', values, aggregator: 'sum' } as unknown as HistogramExport;
  }

  /** What the registry renders the text format from (prom-client's own histograms give it unsplayed labels). */
  async getForPromString(): Promise<HistogramExport> {
    return this.get();
  }
}

/**
 * Counts by a small, fixed set of label values, as plain additions; the counter reads them when scraped. A count's
 * labels are made from its key once, on first sight, so an addition allocates nothing.
 */
class Tally<L extends string> {
  readonly #counts = new Map<string, { labels: Partial<Record<L, string>>; value: number }>();
  readonly #labelsOf: (key: string) => Partial<Record<L, string>>;

  constructor(labelsOf: (key: string) => Partial<Record<L, string>>) {
    this.#labelsOf = labelsOf;
  }

  add(key: string): void {
    const entry = this.#counts.get(key);
    if (entry) entry.value += 1;
    else this.#counts.set(key, { labels: this.#labelsOf(key), value: 1 });
  }

  /** Sets a count to zero so that the first scrape shows it. */
  declare(key: string): void {
    if (!this.#counts.has(key)) this.#counts.set(key, { labels: this.#labelsOf(key), value: 0 });
  }

  /** The counter's collect(): its values become the tally's totals. */
  collectInto(counter: Counter<L>): void {
    counter.reset();
    for (const { labels, value } of this.#counts.values()) counter.inc(labels, value);
  }
}

export function createMetrics(options: { processMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry, prefix: 'catalog_' });
  const recorder = new RequestRecorder();
  const cacheTally = new Tally<'result'>((result) => ({ result }));
  const modeTally = new Tally<'mode'>((mode) => ({ mode }));
  const limitTally = new Tally<'decision' | 'store'>((key) => {
    const [decision, store] = key.split(' ');
    return { decision, store };
  });
  new Counter({
    name: 'catalog_http_requests_total',
    help: 'HTTP requests answered, by route pattern, method and status',
    labelNames: ['route', 'method', 'status'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { labels, byStatus } of recorder.series()) for (const [status, value] of byStatus) this.inc({ ...labels, status: String(status) }, value);
    },
  });
  new RecordedLatency(recorder, {
    name: 'catalog_http_request_duration_seconds',
    help: 'Time from request to the end of the response, by route pattern and method',
    labelNames: ['route', 'method'],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  new Counter({
    name: 'catalog_search_cache_requests_total',
    help: 'Listing searches answered from the response cache (hit) or computed (miss)',
    labelNames: ['result'],
    registers: [registry],
    collect() {
      cacheTally.collectInto(this);
    },
  });
  new Counter({
    name: 'catalog_search_requests_total',
    help: 'Listing searches by the Search-Mode they were answered with',
    labelNames: ['mode'],
    registers: [registry],
    collect() {
      modeTally.collectInto(this);
    },
  });
  new Counter({
    name: 'catalog_rate_limit_decisions_total',
    help: 'Rate-limit decisions, by outcome and by the store that made them (memory when Redis is down or unset)',
    labelNames: ['decision', 'store'],
    registers: [registry],
    collect() {
      limitTally.collectInto(this);
    },
  });
  const redisUp = new Gauge({
    name: 'catalog_redis_up',
    help: '1 while Redis is reachable, 0 while it is not (state is shared through it); absent when REDIS_URL is unset',
    registers: [registry],
  });
  const redisDown = new Counter({
    name: 'catalog_redis_down_transitions_total',
    help: 'Times Redis went from reachable to unreachable',
    registers: [registry],
  });
  let lastRedis: RedisState = 'unconfigured';
  // Pre-set so a ratio and a rate can be computed from the first scrape.
  cacheTally.declare('hit');
  cacheTally.declare('miss');

  return {
    registry,
    request(route, method, status, seconds) {
      recorder.record(route, method, status, seconds);
    },
    searchCache(hit) {
      cacheTally.add(hit ? 'hit' : 'miss');
    },
    searchMode(mode) {
      modeTally.add(mode);
    },
    rateLimit(allowed, store) {
      limitTally.add(RATE_DECISION_KEYS[allowed ? 'allowed' : 'limited'][store]);
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
