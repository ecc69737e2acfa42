// Guarantees what an operator sees (issue 14, defect 6 and "Operations"): /healthz, /readyz with the build, the
// semantic index and Redis, request ids in and out, Prometheus metrics by route, and a Redis outage that is
// visible (readiness degraded, catalog_redis_up 0, decisions by the memory limiter) while reads keep working.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../support/redis-server.ts';
import { json, startServer, type TestServer } from '../support/server.ts';

interface Readiness {
  status: string;
  build: string;
  checks: { artifacts: { ok: boolean; listings: number }; semantic: { state: string }; redis: { state: string; outages?: number } };
}

const metricValue = (text: string, name: string, labels: Record<string, string> = {}): number | undefined => {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (rest[0] !== ' ' && rest[0] !== '{') continue;
    if (wanted.every((pair) => rest.includes(pair))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
};

async function until<T>(probe: () => Promise<T>, ok: (value: T) => boolean, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (ok(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('health, readiness, request ids and metrics', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({}, {}, { METRICS_PUBLIC: 'true' });
  });
  afterAll(() => server.close());

  it('/healthz answers and /readyz names the build, the listings and the semantic state', async () => {
    expect(await json(await server.fetch('/healthz'))).toEqual({ status: 'ok' });
    const res = await server.fetch('/readyz');
    expect(res.status).toBe(200);
    const body = await json<Readiness>(res);
    expect(body.build).toBe(res.headers.get('catalog-build'));
    expect(body.checks.artifacts.ok).toBe(true);
    expect(body.checks.artifacts.listings).toBeGreaterThan(1000);
    expect(['loading', 'ready', 'unavailable']).toContain(body.checks.semantic.state);
    expect(body.checks.redis.state).toBe('unconfigured');
    expect(['ready', 'degraded']).toContain(body.status);
  });

  it('echoes a sane X-Request-Id and makes one otherwise', async () => {
    expect((await server.fetch('/api/v1/meta', { headers: { 'X-Request-Id': 'trace-123.abc' } })).headers.get('x-request-id')).toBe('trace-123.abc');
    const made = (await server.fetch('/api/v1/meta', { headers: { 'X-Request-Id': 'bad id\twith spaces' } })).headers.get('x-request-id');
    expect(made).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('/metrics counts requests by route pattern, the search cache, search modes and rate-limit decisions', async () => {
    // An answer is kept from its second request on: two misses, then hits.
    for (let i = 0; i < 4; i++) await server.fetch('/api/v1/listings?q=postgres&limit=2');
    await server.fetch('/api/v1/listings/does-not-exist');
    const res = await server.fetch('/metrics');
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(metricValue(text, 'catalog_http_requests_total', { route: '/api/v1/listings', method: 'GET', status: '200' })).toBeGreaterThanOrEqual(3);
    expect(metricValue(text, 'catalog_http_requests_total', { route: '/api/v1/listings/:id', status: '404' })).toBeGreaterThanOrEqual(1);
    expect(metricValue(text, 'catalog_http_request_duration_seconds_count', { route: '/api/v1/listings' })).toBeGreaterThanOrEqual(3);
    expect(metricValue(text, 'catalog_search_cache_requests_total', { result: 'hit' })).toBeGreaterThanOrEqual(2);
    expect(metricValue(text, 'catalog_search_cache_requests_total', { result: 'miss' })).toBeGreaterThanOrEqual(2);
    expect(text).toMatch(/catalog_search_requests_total\{mode="[a-z-]+"\} \d+/);
    expect(metricValue(text, 'catalog_rate_limit_decisions_total', { decision: 'allowed', store: 'memory' })).toBeGreaterThan(3);
    expect(text).toContain('catalog_process_resident_memory_bytes');
  });

  it('logs one structured line per request with its id, route pattern, status and duration', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    const logged = await startServer({}, { logger: pino({ level: 'info' }, sink) });
    try {
      await logged.fetch('/api/v1/listings/vercel-react-best-practices', { headers: { 'X-Request-Id': 'req-42' } });
      await new Promise((resolve) => setTimeout(resolve, 50));
      const line = lines.find((entry) => entry.reqId === 'req-42');
      expect(line).toMatchObject({
        msg: 'request',
        method: 'GET',
        url: '/api/v1/listings/vercel-react-best-practices',
        route: '/api/v1/listings/:id',
        status: 200,
        completed: true,
      });
      expect(typeof line?.ms).toBe('number');
    } finally {
      await logged.close();
    }
  });

  it('health and readiness probes are not counted against the rate limit', async () => {
    const limited = await startServer({ rateLimit: { max: 2, windowSeconds: 60 } });
    try {
      for (let i = 0; i < 6; i++) {
        expect((await limited.fetch('/healthz')).status).toBe(200);
        expect((await limited.fetch('/readyz')).status).toBe(200);
      }
      expect((await limited.fetch('/api/v1/meta')).status).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('/metrics needs a staff token unless METRICS_PUBLIC is set', async () => {
    const closed = await startServer();
    try {
      const res = await closed.fetch('/metrics');
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    } finally {
      await closed.close();
    }
  });
});

describe('a Redis outage is visible and reads keep working', () => {
  let redis: TestRedis;
  let server: TestServer;
  beforeAll(async () => {
    redis = await startRedis();
    server = await startServer({}, {}, { REDIS_URL: redis.url, METRICS_PUBLIC: 'true' });
  });
  afterAll(async () => {
    await server?.close();
    await redis?.stop();
  });

  const readiness = async () => json<Readiness>(await server.fetch('/readyz'));
  const metrics = async () => (await server.fetch('/metrics')).text();

  it('reports up, then down (degraded, memory limiter, reads fine), then up again', async () => {
    const up = await until(readiness, (body) => body.checks.redis.state === 'up');
    expect(up.checks.redis.state).toBe('up');
    expect(metricValue(await metrics(), 'catalog_redis_up')).toBe(1);

    await redis.stop();
    const down = await until(readiness, (body) => body.checks.redis.state === 'down');
    expect(down.status).toBe('degraded');
    expect(down.checks.redis.outages).toBe(1);
    for (let i = 0; i < 5; i++) expect((await server.fetch('/api/v1/listings?limit=1')).status).toBe(200);
    const during = await metrics();
    expect(metricValue(during, 'catalog_redis_up')).toBe(0);
    expect(metricValue(during, 'catalog_redis_down_transitions_total')).toBe(1);
    expect(metricValue(during, 'catalog_rate_limit_decisions_total', { decision: 'allowed', store: 'memory' })).toBeGreaterThanOrEqual(5);

    redis = await startRedis(redis.port);
    const back = await until(readiness, (body) => body.checks.redis.state === 'up', 20_000);
    expect(back.checks.redis.state).toBe('up');
    const before = metricValue(await metrics(), 'catalog_rate_limit_decisions_total', { decision: 'allowed', store: 'redis' }) ?? 0;
    expect((await server.fetch('/api/v1/listings?limit=1')).status).toBe(200);
    expect(metricValue(await metrics(), 'catalog_rate_limit_decisions_total', { decision: 'allowed', store: 'redis' })).toBeGreaterThan(before);
  });
});
