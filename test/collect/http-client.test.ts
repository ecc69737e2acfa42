// Guarantees the collector's HTTP client: bounded retries on network errors, timeouts and 5xx; rate limits (429,
// and 403 with retry-after, x-ratelimit-remaining: 0 or a "rate limit" message) waited out when short and
// reported when long; requests, 304s and waits counted; never a thrown error, whatever the server answers; and
// the conditional-request store that survives a restart and is written atomically.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { ConditionalStore, createHttpClient, parseRetryAfter, rateLimitWait, type HttpClientOptions } from '../../build/collect/http.ts';
import { emptyStats } from '../../build/collect/types.ts';
import { sequence, startScriptServer, type Reply } from './support/script-server.ts';

const NOW = Date.parse('2026-11-27T12:00:00Z');
const fast = (overrides: Partial<HttpClientOptions> = {}) => {
  const stats = emptyStats();
  const client = createHttpClient({ stats, timeoutMs: 10_000, retries: 2, minDelayMs: 1, maxDelayMs: 4, maxWaitMs: 1500, clock: () => NOW, ...overrides });
  return { stats, client };
};

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('rate-limit signals', () => {
  it('reads retry-after as seconds or as an HTTP date', () => {
    expect(parseRetryAfter('120', NOW)).toBe(120_000);
    expect(parseRetryAfter(new Date(NOW + 30_000).toUTCString(), NOW)).toBe(30_000);
    expect(parseRetryAfter(new Date(NOW - 30_000).toUTCString(), NOW)).toBe(0);
    expect(parseRetryAfter('soon', NOW)).toBeUndefined();
    expect(parseRetryAfter(null, NOW)).toBeUndefined();
  });

  const reset = String(NOW / 1000 + 600);
  it.each([
    ['429 with retry-after', 429, { 'retry-after': '7' }, '', 7_000],
    ['429 without a hint: the backoff delay', 429, {}, '', 42],
    ['403 secondary limit with retry-after', 403, { 'retry-after': '60' }, '{"message":"You have exceeded a secondary rate limit."}', 60_000],
    [
      '403 primary limit: until x-ratelimit-reset',
      403,
      { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset },
      '{"message":"API rate limit exceeded"}',
      601_000,
    ],
    ['429 primary limit: until x-ratelimit-reset', 429, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset }, '', 601_000],
    ['403 secondary limit without retry-after: one minute', 403, {}, '{"message":"You have exceeded a secondary rate limit"}', 60_000],
    ['403 forbidden without any limit signal: not a limit', 403, { 'x-ratelimit-remaining': '4999' }, '{"message":"Repository access blocked"}', undefined],
    ['200 with remaining 0: not a limit (yet)', 200, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset }, '{}', undefined],
  ] as const)('%s', (_name, status, headers, text, expected) => {
    expect(rateLimitWait(status, new Headers(headers), text, NOW, 42)).toBe(expected);
  });
});

describe('requests', () => {
  it('retries 5xx with backoff, then answers; every attempt is counted', async () => {
    const server = await startScriptServer(sequence([{ status: 500 }, { status: 503 }, { status: 200, body: { ok: true } }]));
    const { client, stats } = fast();
    const answer = await client.request(`${server.origin}/x`);
    await server.close();
    expect(answer).toMatchObject({ ok: true, status: 200, text: '{"ok":true}' });
    expect(stats.requests).toBe(3);
  });

  it('gives up after `retries` and says so, with the last status', async () => {
    const server = await startScriptServer(sequence([{ status: 502 }]));
    const { client, stats } = fast();
    const answer = await client.request(`${server.origin}/x`);
    await server.close();
    expect(answer).toMatchObject({ ok: false, reason: 'server', status: 502 });
    expect(!answer.ok && answer.message).toMatch(/answered 502 \(after 3 attempts\)/);
    expect(stats.requests).toBe(3);
  });

  it('times out an answer that never comes, and a body cut half-way is a network failure', async () => {
    const server = await startScriptServer(sequence([{ hang: true }]));
    const { client } = fast({ timeoutMs: 100, retries: 1 });
    const started = Date.now();
    const answer = await client.request(`${server.origin}/x`);
    expect(answer).toMatchObject({ ok: false, reason: 'timeout' });
    expect(Date.now() - started).toBeLessThan(5000);
    await server.close();

    const cut = await startScriptServer(sequence([{ cut: true, body: { long: 'x'.repeat(5000) } }]));
    const second = await fast({ retries: 0 }).client.request(`${cut.origin}/x`);
    await cut.close();
    expect(second).toMatchObject({ ok: false, reason: 'network' });
  });

  it('waits out a short 429 and counts the wait; a 304 is counted as not modified', async () => {
    const server = await startScriptServer(
      sequence([
        { status: 429, headers: { 'retry-after': '0' } },
        { status: 304, headers: { etag: '"a"' } },
      ]),
    );
    const { client, stats } = fast();
    const answer = await client.request(`${server.origin}/x`);
    await server.close();
    expect(answer).toMatchObject({ ok: true, status: 304 });
    expect(stats).toMatchObject({ requests: 2, rateLimitWaits: 1, notModified: 1 });
  });

  it('does not sleep through a long limit: it reports how long it would have been', async () => {
    const reset = String(Math.floor(NOW / 1000) + 3600);
    const server = await startScriptServer(sequence([{ status: 403, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset } }]));
    const { client, stats } = fast();
    const started = Date.now();
    const answer = await client.request(`${server.origin}/x`);
    await server.close();
    expect(answer).toMatchObject({ ok: false, reason: 'rate-limit', status: 403 });
    expect(!answer.ok && answer.waitMs).toBeGreaterThan(3_600_000);
    expect(stats.rateLimitWaits).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('stops at once when the collection is aborted, even mid-wait', async () => {
    const server = await startScriptServer(sequence([{ status: 429, headers: { 'retry-after': '1' } }]));
    const controller = new AbortController();
    const { client } = fast({ signal: controller.signal, maxWaitMs: 5000 });
    setTimeout(() => controller.abort(), 50);
    const answer = await client.request(`${server.origin}/x`);
    await server.close();
    expect(answer).toMatchObject({ ok: false, reason: 'aborted' });
  });

  it('never throws on an unusable URL', async () => {
    const answer = await fast().client.request('not a url');
    expect(answer.ok).toBe(false);
  });
});

describe('property: any sequence of answers ends in an answer or a failure, never a throw', () => {
  const reply = fc.oneof(
    fc
      .constantFrom(200, 201, 204, 301, 304, 400, 401, 403, 404, 410, 418, 429, 451, 500, 502, 503, 504)
      .map((status): Reply => ({ status, body: status === 204 || status === 304 ? undefined : '{}' })),
    fc
      .record({ status: fc.constantFrom(403, 429), retryAfter: fc.constantFrom('0', '1', '999', 'garbage', '') })
      .map(({ status, retryAfter }): Reply => ({ status, headers: retryAfter ? { 'retry-after': retryAfter } : {} })),
    fc.constant<Reply>({ status: 403, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '99999999999' } }),
    fc.constant<Reply>({ hang: true }),
    fc.constant<Reply>({ cut: true, body: 'x'.repeat(200) }),
  );

  it('holds over generated sequences', async () => {
    let replies: Reply[] = [];
    const server = await startScriptServer(() => replies.shift() ?? { status: 200, body: '{}' });
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(reply, { minLength: 1, maxLength: 6 }), fc.integer({ min: 0, max: 3 }), async (sequence, retries) => {
          replies = [...sequence];
          const stats = emptyStats();
          const client = createHttpClient({ stats, timeoutMs: 60, retries, minDelayMs: 1, maxDelayMs: 2, maxWaitMs: 20, rateLimitRetries: 2 });
          const outcome = await client.request(`${server.origin}/p`);
          expect(typeof outcome.ok).toBe('boolean');
          if (!outcome.ok) expect(outcome.message.length).toBeGreaterThan(0);
          // Bounded: retries for failures plus the limit waits, never more.
          expect(stats.requests).toBeLessThanOrEqual(retries + 1 + 2 + 1);
        }),
        { numRuns: 40 },
      );
    } finally {
      await server.close();
    }
  });
});

describe('the conditional-request store', () => {
  it('keeps validators and figures across instances, sends them back, and writes atomically', () => {
    const dir = mkdtempSync(join(tmpdir(), 'catalog-etags-'));
    dirs.push(dir);
    const path = join(dir, 'etags.json');
    const store = new ConditionalStore(path);
    store.remember('a/b', new Headers({ etag: 'W/"123"', 'last-modified': 'Tue, 24 Nov 2026 10:00:00 GMT' }), { stars: 5 });
    store.remember('c/d', new Headers({}));
    store.save();
    expect(readdirSync(dir)).toEqual(['etags.json']);
    const again = new ConditionalStore(path);
    expect(again.headers('a/b')).toEqual({ 'if-none-match': 'W/"123"', 'if-modified-since': 'Tue, 24 Nov 2026 10:00:00 GMT' });
    expect(again.get('a/b')?.value).toEqual({ stars: 5 });
    expect(again.headers('c/d')).toEqual({});
    const before = readFileSync(path, 'utf8');
    again.save();
    expect(readFileSync(path, 'utf8')).toBe(before);
  });

  it('starts empty from an unreadable file instead of failing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'catalog-etags-'));
    dirs.push(dir);
    const path = join(dir, 'etags.json');
    writeFileSync(path, '{"a/b": {"etag": "W/');
    const store = new ConditionalStore(path);
    expect(store.size).toBe(0);
    expect(existsSync(path)).toBe(true);
  });
});
