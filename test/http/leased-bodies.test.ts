// The listing routes write their bodies into leased memory that later responses reuse (server/http/body-pool.ts).
// Over a real socket, under concurrency: every response carries its own answer, and an answer kept by the search
// cache stays whole after its memory has gone on to other responses (the cache keeps a copy).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.ts';
import { unreadPipeline } from '../support/raw-http.ts';

const WORDS = [
  'pdf',
  'github',
  'database',
  'browser',
  'test',
  'docker',
  'python',
  'react',
  'api',
  'security',
  'search',
  'data',
  'code',
  'file',
  'agent',
  'design',
];
const SEARCHES = WORDS.flatMap((word) => [`/api/v1/listings?q=${word}&limit=50`, `/v1/listings?q=${word}&limit=40`]);
const OTHERS = WORDS.map((word) => `/api/v1/listings?q=${word}&limit=45&type=skill`);

let server: TestServer;

beforeAll(async () => {
  server = await startServer();
}, 120_000);

afterAll(async () => {
  await server?.close();
});

async function text(path: string, init?: RequestInit): Promise<string> {
  const response = await server.fetch(path, init);
  expect(response.status, path).toBe(200);
  return response.text();
}

describe('bodies in leased memory', () => {
  it('answer each concurrent request with its own body, and cached answers stay whole', async () => {
    // One at a time first: the reference answers (and each search's first request, which the cache only notes).
    const expected = new Map<string, string>();
    for (const path of SEARCHES) expected.set(path, await text(path));
    const sizes = [...expected.values()].map((body) => body.length);
    expect(Math.min(...sizes)).toBeGreaterThan(4096); // large enough to be leased
    // The second request of each is kept by the cache; the rounds after it are answered from the cache while other
    // searches lease, write and give back the same size classes of memory.
    for (let round = 0; round < 4; round++) {
      const paths = [...SEARCHES, ...OTHERS];
      const bodies = await Promise.all(paths.map((path) => text(path)));
      paths.forEach((path, i) => {
        if (expected.has(path)) expect(bodies[i], `${path}, round ${round}`).toBe(expected.get(path));
        else expect(JSON.parse(bodies[i]!).items.length, path).toBeGreaterThan(0);
      });
    }
  });

  it('answer concurrent batches with their own listings', async () => {
    const page = JSON.parse(await text('/api/v1/listings?q=mcp&limit=100')) as { items: Array<{ id: string }> };
    const ids = page.items.map((item) => item.id);
    expect(ids.length).toBe(100);
    const groups = Array.from({ length: 12 }, (_, g) => ids.slice(g * 8, g * 8 + 25));
    for (let round = 0; round < 3; round++) {
      const bodies = await Promise.all(
        groups.map((group) =>
          text('/api/v1/listings/batch', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ids: group }) }),
        ),
      );
      bodies.forEach((body, g) => expect((JSON.parse(body) as { items: Array<{ id: string }> }).items.map((item) => item.id)).toEqual(groups[g]));
    }
  });

  it('keep a body until its response is written, while the client is slow to read it', async () => {
    // A client that does not read: its answers wait in the socket's buffers and in Node's queue, holding their
    // leased bodies, while other clients' requests lease more. A body given back before it is written would be
    // overwritten there.
    const paths = WORDS.flatMap((word) => [100, 99, 98, 97, 96, 95].map((limit) => `/api/v1/listings?q=${word}&limit=${limit}`));
    const expected = new Map<string, string>();
    for (const path of paths) expected.set(path, await text(path));
    const client = await unreadPipeline(server.origin, paths);
    // Unread, the pipelined answers (96 pages of up to 100 listings: megabytes) fill the buffers; meanwhile other
    // searches lease and give back memory.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const others = WORDS.flatMap((word) => ['skill', 'mcp'].map((type) => `/api/v1/listings?q=${word}&limit=100&type=${type}`));
    await Promise.all(others.map((path) => server.fetch(path).then((response) => response.arrayBuffer())));
    const bodies = await client.bodies();
    expect(bodies.length).toBe(paths.length);
    bodies.forEach((body, i) => expect(body, paths[i]).toBe(expected.get(paths[i]!)));
  });
});
