// Concurrent requests for a search page nobody has asked for yet (server/routes/catalog-routes.ts, flights): they
// wait for the one search under way instead of each making its own search and body, and each still gets the whole
// page, intact after the first request's leased body has gone back to the pool and been reused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.ts';
import { unreadPipeline } from '../support/raw-http.ts';
import type { ListingSearch } from '../../server/search-runtime/listing-search.ts';

let server: TestServer;
let searches = 0;

beforeAll(async () => {
  server = await startServer();
  // The real search, counted, and slowed down so that all the requests of a burst arrive while it runs (as they do
  // when searches wait for a worker under load): every request that reaches it is one search made. 400 ms, since
  // with the whole suite running on two cores a burst's last request once arrived after 100 ms.
  const search: ListingSearch = server.app.services.listingSearch;
  server.app.services.listingSearch = async (snapshot, query) => {
    searches++;
    const answer = await search(snapshot, query);
    await new Promise((resolve) => setTimeout(resolve, 400));
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
    // Enough large pages to fill the socket's buffers (megabytes), asked twice beforehand: kept by the answer cache,
    // so the pipeline's fillers make no search and lease nothing.
    const fillers = ['pdf', 'github', 'database', 'browser', 'test', 'docker', 'python', 'api'].flatMap((word) =>
      [100, 99, 98, 97, 96, 95].map((limit) => `/api/v1/listings?q=${word}&limit=${limit}`),
    );
    for (const path of [...fillers, ...fillers]) await text(path);
    // The other searches lease blocks of the shared page's size class (pool blocks are powers of two): the first
    // response's block, given back, is the next one leased.
    const sizeClass = (body: string) => Math.ceil(Math.log2(Buffer.byteLength(body)));
    const shared = '/api/v1/listings?q=react&limit=100&sort=stars';
    const sharedClass = sizeClass(await text(shared + '&offset=0'));
    const candidates = ['security', 'search', 'design', 'agent', 'code', 'data', 'file', 'web', 'cloud', 'git', 'chat', 'image'].map(
      (word) => `/api/v1/listings?q=${word}&limit=100&sort=stars`,
    );
    const others: string[] = [];
    for (const path of candidates) if (sizeClass(await text(path)) === sharedClass) others.push(path);
    expect(others.length).toBeGreaterThanOrEqual(3);
    const before = searches;
    const first = text(shared);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const pipeline = [...fillers, shared];
    const client = await unreadPipeline(server.origin, pipeline);
    const expected = await first;
    // The waiter shared the first request's search; then other searches lease and give back the same size class.
    await Promise.all(others.map((path) => server.fetch(path).then((response) => response.arrayBuffer())));
    const bodies = await client.bodies();
    expect(bodies.length).toBe(pipeline.length);
    expect(bodies.at(-1)).toBe(expected);
    // One search for the shared page, by the first request, and one for each of the others.
    expect(searches - before).toBe(1 + others.length);
  });
});
