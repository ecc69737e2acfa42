// Concurrent requests for a search page nobody has asked for yet (server/routes/catalog-routes.ts, flights): they
// wait for the one search under way instead of each making its own search and body, and each still gets the whole
// page, intact after the first request's leased body has gone back to the pool and been reused.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.ts';
import { pipelinedBodies } from '../support/raw-http.ts';
import type { ListingSearch } from '../../server/search/listing-search.ts';

let server: TestServer;
let searches = 0;

beforeAll(async () => {
  server = await startServer();
  // The real search, counted, and slowed down so that all the requests of a burst arrive while it runs (as they do
  // when searches wait for a worker under load): every request that reaches it is one search made.
  const search: ListingSearch = server.app.services.listingSearch;
  server.app.services.listingSearch = async (snapshot, query) => {
    searches++;
    const answer = await search(snapshot, query);
    await new Promise((resolve) => setTimeout(resolve, 100));
    return answer;
  };
}, 120_000);

afterAll(async () => {
  await server?.close();
});

async function text(path: string): Promise<string> {
  const response = await server.fetch(path);
  expect(response.status, path).toBe(200);
  return response.text();
}

describe('concurrent requests for one search page', () => {
  it('make one search between them, and each gets the same whole page', async () => {
    for (const [i, word] of ['pdf', 'github', 'database', 'browser'].entries()) {
      const paths = [`/api/v1/listings?q=${word}&limit=60&offset=${i}`, `/api/upstream/listings?q=${word}&limit=60&offset=${i}`];
      for (const path of paths) {
        const before = searches;
        const bodies = await Promise.all(Array.from({ length: 16 }, () => text(path)));
        expect(searches - before, path).toBe(1);
        expect(new Set(bodies).size, path).toBe(1);
        const page = JSON.parse(bodies[0]!) as { items?: unknown[] } | unknown[];
        expect((Array.isArray(page) ? page : page.items!).length, path).toBe(60);
      }
    }
  });

  it('share a copy: the leased memory of the first response goes on to other pages without changing theirs', async () => {
    // A waiter whose client does not read yet: its answer waits in Node's queue behind a pipeline of large pages,
    // while the first response (a fast client's) is written, its leased body given back and reused by other searches.
    // Had the waiter been given that same memory, its queued answer would now hold another page.
    const fillers = ['pdf', 'github', 'database', 'browser', 'test', 'docker'].flatMap((word) => [100, 99, 98].map((limit) => `/api/v1/listings?q=${word}&limit=${limit}`));
    // Asked twice: kept by the answer cache, so the pipeline's fillers make no search.
    for (const path of [...fillers, ...fillers]) await text(path);
    const shared = '/api/v1/listings?q=python&limit=100&sort=stars';
    const others = ['react', 'security', 'search', 'design', 'agent', 'code'].flatMap((word) => ['skill', 'mcp'].map((type) => `/api/v1/listings?q=${word}&limit=100&type=${type}`));
    const { port } = new URL(server.origin);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    const before = searches;
    const first = text(shared);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const pipeline = [...fillers, shared];
    socket.write(pipeline.map((path, i) => `GET ${path} HTTP/1.1\r\nHost: x\r\n${i === pipeline.length - 1 ? 'Connection: close\r\n' : ''}\r\n`).join(''));
    const expected = await first;
    // The waiter shared the first request's search; then other searches lease and give back the same size class.
    await Promise.all(others.map((path) => server.fetch(path).then((response) => response.arrayBuffer())));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    await new Promise((resolve) => socket.on('close', resolve));
    const bodies = pipelinedBodies(Buffer.concat(chunks));
    expect(bodies.length).toBe(pipeline.length);
    expect(bodies.at(-1)).toBe(expected);
    // One search for the shared page, by the first request, and one for each of the others.
    expect(searches - before).toBe(1 + others.length);
  });
});
