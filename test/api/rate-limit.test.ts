// Guarantees the per-client rate limit: IETF RateLimit headers, 429 with Retry-After after the budget is
// spent, and X-Forwarded-For believed only when the trusted-proxy setting says so.
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorSchema } from '../../src/domain/schemas.ts';
import { json, startInProcess, type TestServer } from '../support/server.ts';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('rate limit', () => {
  it('sends RateLimit, RateLimit-Policy and integer RateLimit-* headers', async () => {
    server = await startInProcess({ rateLimit: { max: 120, windowSeconds: 60 } });
    const res = await server.fetch('/api/v1/listings?limit=1');
    expect(res.headers.get('ratelimit-policy')).toBe('120;w=60');
    expect(res.headers.get('ratelimit')).toMatch(/^limit=120, remaining=119, reset=\d+$/);
    expect(res.headers.get('ratelimit-limit')).toBe('120');
    expect(res.headers.get('ratelimit-remaining')).toBe('119');
    expect(res.headers.get('ratelimit-reset')).toMatch(/^\d+$/);
  });

  it('answers 429 with Retry-After and rate_limited after 120 requests in the window', async () => {
    server = await startInProcess({ rateLimit: { max: 120, windowSeconds: 60 } });
    const statuses: number[] = [];
    for (let i = 0; i < 121; i++) statuses.push((await server.fetch('/api/upstream/stages')).status);
    expect(statuses.slice(0, 120).every((s) => s === 200)).toBe(true);
    const limited = await server.fetch('/api/upstream/stages');
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    expect(ErrorSchema.parse(await json(limited)).code).toBe('rate_limited');
  });

  it('ignores X-Forwarded-For unless a trusted proxy is configured', async () => {
    server = await startInProcess({ rateLimit: { max: 2, windowSeconds: 60 }, trustProxy: false });
    for (const ip of ['10.0.0.1', '10.0.0.2', '10.0.0.3']) await server.fetch('/api/v1', { headers: { 'X-Forwarded-For': ip } });
    expect((await server.fetch('/api/v1', { headers: { 'X-Forwarded-For': '10.0.0.4' } })).status).toBe(429);
  });

  it('keys clients by X-Forwarded-For behind a trusted proxy', async () => {
    server = await startInProcess({ rateLimit: { max: 2, windowSeconds: 60 }, trustProxy: 1 });
    const from = (ip: string) => server!.fetch('/api/v1', { headers: { 'X-Forwarded-For': `198.51.100.7, ${ip}` } });
    expect((await from('203.0.113.1')).status).toBe(200);
    expect((await from('203.0.113.1')).status).toBe(200);
    expect((await from('203.0.113.1')).status).toBe(429);
    expect((await from('203.0.113.2')).status).toBe(200);
  });
});
