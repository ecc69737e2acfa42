// Guarantees Idempotency-Key on POST /ask, MCP tools/call and A2A message/send: a byte-for-byte replay with
// Idempotent-Replayed: true, 422 for a reused key, 409 while the first request runs, 400 for a malformed key,
// scoping per endpoint and method, and the same behaviour from the Redis store shared by several instances.
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { canonicalJson, fingerprint, runIdempotent, scopedKey } from '../../server/idempotency/idempotency.ts';
import { MemoryIdempotencyStore } from '../../server/idempotency/memory-store.ts';
import { redisKey, RedisIdempotencyStore } from '../../server/idempotency/redis-store.ts';
import type { StoredResponse } from '../../server/idempotency/store.ts';
import { ErrorSchema } from '../../src/domain/schemas.ts';
import { startRedis, type TestRedis } from '../support/redis-server.ts';
import { json, startServer, type TestServer } from '../support/server.ts';

interface Captured {
  status: number;
  type: string | null;
  replayed: string | null;
  bytes: Buffer;
}

async function capture(res: Response): Promise<Captured> {
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    replayed: res.headers.get('idempotent-replayed'),
    bytes: Buffer.from(await res.arrayBuffer()),
  };
}

const send = (server: TestServer, path: string, body: unknown, headers: Record<string, string> = {}) =>
  server.fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });

const toolCall = (id: number, name = 'search_catalog', args: Record<string, unknown> = { query: 'pdf', limit: 2 }) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});
const messageSend = (text: string) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'message/send',
  params: { message: { kind: 'message', messageId: 'm', role: 'user', parts: [{ kind: 'text', text }] } },
});

/** Sends the same request twice with one key: the second must be the first, byte for byte, marked as replayed. */
async function expectReplay(server: TestServer, path: string, body: unknown, key: string, headers: Record<string, string> = {}): Promise<Captured> {
  const first = await capture(await send(server, path, body, { 'Idempotency-Key': key, ...headers }));
  const second = await capture(await send(server, path, body, { 'Idempotency-Key': key, ...headers }));
  expect(first.status).toBe(200);
  expect(first.replayed).toBeNull();
  expect(second.replayed).toBe('true');
  expect(second.status).toBe(first.status);
  expect(second.type).toBe(first.type);
  expect(second.bytes.equals(first.bytes)).toBe(true);
  return first;
}

const uniqueKey = (label: string) => `${label}-${crypto.randomUUID()}`;

describe('with the in-memory store', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it('replays POST /ask (JSON and SSE) byte for byte', async () => {
    await expectReplay(server, '/ask', { query: 'postgres', limit: 3 }, uniqueKey('ask'));
    const sse = await expectReplay(server, '/ask', { query: 'postgres', stream: true }, uniqueKey('ask-sse'));
    expect(sse.type).toMatch(/^text\/event-stream/);
  });

  it('replays an MCP tools/call byte for byte on each MCP endpoint', async () => {
    for (const path of ['/.well-known/mcp', '/mcp', '/.well-known/mcp/sse']) await expectReplay(server, path, toolCall(1), uniqueKey('mcp'));
  });

  it('replays A2A message/send byte for byte (the random messageId proves it is the stored answer)', async () => {
    const first = await expectReplay(server, '/a2a/v1', messageSend('pdf'), uniqueKey('a2a'));
    const fresh = await capture(await send(server, '/a2a/v1', messageSend('pdf')));
    expect(fresh.bytes.equals(first.bytes)).toBe(false);
  });

  it('treats a reordered body as the same request', async () => {
    const key = uniqueKey('order');
    await send(server, '/ask', { query: 'pdf', limit: 2 }, { 'Idempotency-Key': key });
    const res = await server.fetch('/ask', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Idempotency-Key': key },
      body: '{ "limit": 2,  "query": "pdf" }',
    });
    expect(res.headers.get('idempotent-replayed')).toBe('true');
  });

  it.each([
    ['/ask', { query: 'pdf' }, { query: 'postgres' }],
    ['/.well-known/mcp', toolCall(1), toolCall(1, 'search_catalog', { query: 'postgres' })],
    ['/a2a/v1', messageSend('pdf'), messageSend('postgres')],
  ])('the same key with a different body on %s is 422 idempotency_key_reused', async (path, body, other) => {
    const key = uniqueKey('reuse');
    expect((await send(server, path, body, { 'Idempotency-Key': key })).status).toBe(200);
    const res = await send(server, path, other, { 'Idempotency-Key': key });
    expect(res.status).toBe(422);
    expect(ErrorSchema.parse(await json(res)).code).toBe('idempotency_key_reused');
  });

  it('a different response format is a different request', async () => {
    const key = uniqueKey('format');
    await send(server, '/ask', { query: 'pdf' }, { 'Idempotency-Key': key });
    expect((await send(server, '/ask', { query: 'pdf' }, { 'Idempotency-Key': key, Accept: 'text/event-stream' })).status).toBe(422);
  });

  it('scopes keys per endpoint and per JSON-RPC method', async () => {
    const key = uniqueKey('scope');
    await send(server, '/.well-known/mcp', toolCall(1), { 'Idempotency-Key': key });
    const other = await send(server, '/mcp', toolCall(1), { 'Idempotency-Key': key });
    expect(other.status).toBe(200);
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    const ask = await send(server, '/ask', { query: 'pdf' }, { 'Idempotency-Key': key });
    expect(ask.status).toBe(200);
    expect(ask.headers.get('idempotent-replayed')).toBeNull();
  });

  it('ignores the key on methods other than tools/call and on GET /ask', async () => {
    const key = uniqueKey('ignored');
    for (let i = 0; i < 2; i++) {
      const list = await send(server, '/.well-known/mcp', { jsonrpc: '2.0', id: i, method: 'tools/list' }, { 'Idempotency-Key': key });
      expect(list.headers.get('idempotent-replayed')).toBeNull();
      const get = await server.fetch('/ask?q=pdf', { headers: { 'Idempotency-Key': key } });
      expect(get.headers.get('idempotent-replayed')).toBeNull();
    }
  });

  it.each([
    ['/ask', { query: 'pdf' }],
    ['/.well-known/mcp', toolCall(1)],
    ['/a2a/v1', messageSend('pdf')],
  ])('a key outside 8-128 characters on %s is 400 naming the header', async (path, body) => {
    for (const key of ['short', 'k'.repeat(129), 'has space in it']) {
      const res = await send(server, path, body, { 'Idempotency-Key': key });
      expect(res.status).toBe(400);
      expect(ErrorSchema.parse(await json(res)).message).toContain('Idempotency-Key');
    }
    expect((await send(server, path, body, { 'Idempotency-Key': 'k'.repeat(8) })).status).toBe(200);
    expect((await send(server, path, body, { 'Idempotency-Key': 'k'.repeat(128) })).status).toBe(200);
  });

  it('a request that fails leaves the key free for the retry', async () => {
    const key = uniqueKey('retry');
    const bad = await server.fetch('/ask', { method: 'POST', headers: { 'Content-Type': 'application/json', 'Idempotency-Key': key }, body: '{"query": 5}' });
    expect(bad.status).toBe(400);
    const good = await send(server, '/ask', { query: 'pdf' }, { 'Idempotency-Key': key });
    expect(good.status).toBe(200);
    expect(good.headers.get('idempotent-replayed')).toBeNull();
  });
});

describe('runIdempotent', () => {
  const prepared = { status: 200, contentType: 'application/json', chunks: ['{"n":1}'] };

  it('runs a request without a key plainly, never fingerprinting it; with a key, fingerprints it once', async () => {
    const store = new MemoryIdempotencyStore({ replayMs: 1000, inFlightMs: 1000, maxEntries: 10 });
    let prints = 0;
    const print = () => {
      prints++;
      return 'f';
    };
    const plain = await runIdempotent({ store, key: undefined, scope: 's', fingerprint: print }, async () => prepared);
    expect(plain).toEqual({ response: prepared, replayed: false });
    expect(prints).toBe(0);
    expect(store.size).toBe(0);
    await runIdempotent({ store, key: 'key-0001', scope: 's', fingerprint: print }, async () => prepared);
    expect(prints).toBe(1);
    const replay = await runIdempotent({ store, key: 'key-0001', scope: 's', fingerprint: print }, async () => ({ ...prepared, chunks: ['other'] }));
    expect(replay.replayed).toBe(true);
    expect(replay.response.chunks).toEqual(['{"n":1}']);
    expect(prints).toBe(2);
  });
});

describe('MemoryIdempotencyStore', () => {
  const response: StoredResponse = { status: 200, contentType: 'application/json', body: '{}', headers: {} };

  it('claims, reports in flight, replays, detects a different fingerprint and releases', async () => {
    const store = new MemoryIdempotencyStore({ replayMs: 1000, inFlightMs: 1000, maxEntries: 10 });
    expect(await store.claim('k', 'f1')).toEqual({ state: 'acquired' });
    expect(await store.claim('k', 'f1')).toEqual({ state: 'in_flight' });
    expect(await store.claim('k', 'f2')).toEqual({ state: 'mismatch' });
    await store.release('k');
    expect(await store.claim('k', 'f1')).toEqual({ state: 'acquired' });
    await store.complete('k', 'f1', response);
    await store.release('k');
    expect(await store.claim('k', 'f1')).toEqual({ state: 'replay', response });
  });

  it('forgets responses after the replay window and claims after theirs', async () => {
    let now = 0;
    const store = new MemoryIdempotencyStore({ replayMs: 300_000, inFlightMs: 60_000, maxEntries: 10, now: () => now });
    await store.claim('a', 'f');
    now = 60_000;
    expect(await store.claim('a', 'f')).toEqual({ state: 'acquired' });
    await store.complete('a', 'f', response);
    now += 299_999;
    expect((await store.claim('a', 'f')).state).toBe('replay');
    now += 1;
    expect(await store.claim('a', 'f')).toEqual({ state: 'acquired' });
  });

  it('is bounded: past maxEntries the least recently used key goes', async () => {
    const store = new MemoryIdempotencyStore({ replayMs: 1000, inFlightMs: 1000, maxEntries: 3 });
    for (const key of ['a', 'b', 'c']) await store.complete(key, 'f', response);
    expect((await store.claim('a', 'f')).state).toBe('replay'); // a is now the most recent
    await store.complete('d', 'f', response);
    expect(store.size).toBe(3);
    expect((await store.claim('b', 'f')).state).toBe('acquired');
    expect((await store.claim('a', 'f')).state).toBe('replay');
  });
});

describe('with Redis (a real redis-server)', () => {
  let redis: TestRedis;
  let client: Redis;
  let servers: TestServer[];

  beforeAll(async () => {
    redis = await startRedis();
    client = new Redis(redis.url);
    servers = [];
    for (let i = 0; i < 2; i++) {
      const server = await startServer({}, {}, { REDIS_URL: redis.url });
      const shared = server.app.services.redis!;
      if (shared.status !== 'ready') await once(shared, 'ready');
      servers.push(server);
    }
  });
  afterAll(async () => {
    for (const server of servers) await server.close();
    client.disconnect();
    await redis.stop();
  });

  it('replays across two instances sharing Redis', async () => {
    const key = uniqueKey('shared');
    const body = { query: 'postgres', limit: 2 };
    const first = await capture(await send(servers[0]!, '/ask', body, { 'Idempotency-Key': key }));
    const second = await capture(await send(servers[1]!, '/ask', body, { 'Idempotency-Key': key }));
    expect(second.replayed).toBe('true');
    expect(second.bytes.equals(first.bytes)).toBe(true);
    const stored = await client.pttl(redisKey(scopedKey('POST /ask', key)));
    expect(stored).toBeGreaterThan(290_000);
    expect(stored).toBeLessThanOrEqual(300_000);
    expect((await send(servers[1]!, '/ask', { query: 'other' }, { 'Idempotency-Key': key })).status).toBe(422);
  });

  it('answers 409 while another instance holds the key for the same request', async () => {
    const key = uniqueKey('inflight');
    const body = toolCall(4);
    // What an instance writes when it claims a key (SET NX PX) before running the call.
    const claim = JSON.stringify({ fingerprint: fingerprint(canonicalJson(body)) });
    await client.set(redisKey(scopedKey('POST /.well-known/mcp tools/call', key)), claim, 'PX', 60_000, 'NX');
    const res = await send(servers[0]!, '/.well-known/mcp', body, { 'Idempotency-Key': key });
    expect(res.status).toBe(409);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(ErrorSchema.parse(await json(res)).code).toBe('idempotency_key_in_flight');
    await client.del(redisKey(scopedKey('POST /.well-known/mcp tools/call', key)));
    expect((await send(servers[0]!, '/.well-known/mcp', body, { 'Idempotency-Key': key })).status).toBe(200);
  });

  describe('RedisIdempotencyStore', () => {
    const response: StoredResponse = {
      status: 200,
      contentType: 'text/event-stream',
      body: 'event: start\ndata: {}\n\n',
      headers: { 'Search-Mode': 'semantic' },
    };
    const store = () =>
      new RedisIdempotencyStore({
        redis: client,
        replayMs: 5_000,
        inFlightMs: 1_000,
        fallback: new MemoryIdempotencyStore({ replayMs: 5_000, inFlightMs: 1_000, maxEntries: 10 }),
        logger: pino({ level: 'silent' }),
      });

    it('claims with SET NX PX, so one claimant wins', async () => {
      const a = store();
      const b = store();
      const key = uniqueKey('nx');
      const claims = await Promise.all([a.claim(key, 'f'), b.claim(key, 'f'), a.claim(key, 'f')]);
      expect(claims.filter((claim) => claim.state === 'acquired')).toHaveLength(1);
      expect(claims.filter((claim) => claim.state === 'in_flight')).toHaveLength(2);
      const ttl = await client.pttl(redisKey(key));
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(1_000);
    });

    it('stores the response for the replay window, detects mismatches, and release never drops a response', async () => {
      const s = store();
      const key = uniqueKey('cycle');
      await s.claim(key, 'f');
      await s.complete(key, 'f', response);
      await s.release(key);
      expect(await s.claim(key, 'f')).toEqual({ state: 'replay', response });
      expect(await s.claim(key, 'g')).toEqual({ state: 'mismatch' });
      expect(await client.pttl(redisKey(key))).toBeGreaterThan(1_000);
    });

    it('release frees a claim for the retry', async () => {
      const s = store();
      const key = uniqueKey('release');
      await s.claim(key, 'f');
      await s.release(key);
      expect(await client.exists(redisKey(key))).toBe(0);
      expect(await s.claim(key, 'f')).toEqual({ state: 'acquired' });
    });

    it('falls back to the in-process store when Redis is unreachable', async () => {
      const down = new Redis(`redis://127.0.0.1:${redis.port}`, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0 });
      down.on('error', () => undefined);
      const fallback = new MemoryIdempotencyStore({ replayMs: 5_000, inFlightMs: 1_000, maxEntries: 10 });
      const s = new RedisIdempotencyStore({ redis: down, replayMs: 5_000, inFlightMs: 1_000, fallback, logger: pino({ level: 'silent' }) });
      expect(await s.claim('k', 'f')).toEqual({ state: 'acquired' });
      await s.complete('k', 'f', response);
      expect(await s.claim('k', 'f')).toEqual({ state: 'replay', response });
      expect(fallback.size).toBe(1);
      down.disconnect();
    });
  });
});
