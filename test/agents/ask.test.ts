// Guarantees /ask (SERVICE.md 4.3, CONTRACT.md "/ask"): a schema.org ItemList as JSON or JSON-LD by Accept, an SSE
// stream of exactly start, item..., complete, the browser redirect to /browse, natural-language questions that find
// sensible listings, and a 400 naming the parameter for every bad input.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { negotiateAsk } from '../../server/agents/ask.ts';
import { ErrorSchema, ListingSchema } from '../../src/domain/schemas.ts';
import { json, startServer, type TestServer } from '../support/server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

interface ItemList {
  '@context': string;
  '@type': string;
  numberOfItems: number;
  itemListElement: Array<{ '@type': string; position: number; item: Record<string, unknown> }>;
}

async function events(res: Response): Promise<EventSourceMessage[]> {
  const seen: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => seen.push(event) });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) parser.feed(chunk.value);
  return seen;
}

const ask = (query: string, init?: RequestInit) => server.fetch(`/ask?${query}`, init);
const postAsk = (body: unknown, headers: Record<string, string> = {}) =>
  server.fetch('/ask', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

function expectItemList(body: ItemList, count: number): void {
  expect(body['@context']).toBe('https://schema.org');
  expect(body['@type']).toBe('ItemList');
  expect(body.numberOfItems).toBe(count);
  expect(body.itemListElement).toHaveLength(count);
  body.itemListElement.forEach((element, i) => {
    expect(element['@type']).toBe('ListItem');
    expect(element.position).toBe(i + 1);
    expect(element.item['@type']).toBe('SoftwareApplication');
    const { '@type': _type, ...listing } = element.item;
    expect(ListingSchema.parse(listing).url).toMatch(/^http:\/\/catalog\.test\/listings\//);
  });
}

describe('JSON and JSON-LD', () => {
  it.each(['query', 'q', 'question'])('GET ?%s= answers an ItemList of 10 listings as application/json', async (name) => {
    const res = await ask(`${name}=pdf`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expectItemList(await json<ItemList>(res), 10);
  });

  it('answers application/ld+json when the request accepts it', async () => {
    const res = await ask('q=pdf', { headers: { Accept: 'application/ld+json, application/json;q=0.9' } });
    expect(res.headers.get('content-type')).toMatch(/^application\/ld\+json/);
    expectItemList(await json<ItemList>(res), 10);
  });

  it('Accept: text/html without navigation metadata still gets JSON', async () => {
    const res = await ask('q=pdf', { headers: { Accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('honours limit up to 50', async () => {
    expectItemList(await json<ItemList>(await ask('q=mcp&limit=50')), 50);
    expectItemList(await json<ItemList>(await ask('q=mcp&limit=1')), 1);
  });

  it('POST with a JSON body, with an empty body reading the query string, and with `question`', async () => {
    expectItemList(await json<ItemList>(await postAsk({ query: 'pdf', limit: 3 })), 3);
    expectItemList(await json<ItemList>(await server.fetch('/ask?q=pdf', { method: 'POST' })), 10);
    expectItemList(await json<ItemList>(await postAsk({ question: 'pdf' })), 10);
  });
});

describe('natural-language questions', () => {
  it.each([
    ['something to let my agent query Postgres', /postgres/i],
    ['I need a tool that fills in PDF forms', /pdf/i],
    ['how can my agent open GitHub issues', /issue/i],
  ])('"%s" finds matching listings first', async (question, pattern) => {
    const body = await json<ItemList>(await ask(`query=${encodeURIComponent(question)}&limit=5`));
    expect(body.itemListElement.length).toBe(5);
    const top = body.itemListElement.slice(0, 3).map((element) => `${element.item.name} ${element.item.description}`);
    expect(top.some((text) => pattern.test(text))).toBe(true);
  });
});

describe('the listings of an answer', () => {
  it('are each listing as its own read gives it, plus @type, the same in JSON, JSON-LD and the stream', async () => {
    const query = 'q=markdown%20converter%20%F0%9F%9A%80&limit=8';
    const list = await json<ItemList>(await ask(query));
    expectItemList(list, 8);
    const ld = await json<ItemList>(await ask(query, { headers: { Accept: 'application/ld+json' } }));
    expect(ld).toEqual(list);
    const streamed = (await events(await ask(`${query}&stream=1`))).slice(1, -1).map((event) => JSON.parse(event.data) as unknown);
    expect(streamed).toEqual(list.itemListElement);
    for (const element of list.itemListElement) {
      const { '@type': type, ...listing } = element.item;
      expect(type).toBe('SoftwareApplication');
      const read = await server.fetch(`/api/v1/listings/${encodeURIComponent(String(listing.id))}`);
      expect(await json<Record<string, unknown>>(read)).toEqual(listing);
    }
  });
});

describe('SSE', () => {
  it.each([
    ['Accept: text/event-stream', () => ask('q=pdf&limit=4', { headers: { Accept: 'text/event-stream' } })],
    ['stream=1', () => ask('q=pdf&limit=4&stream=1')],
    ['POST stream: true', () => postAsk({ q: 'pdf', stream: true, limit: 4 })],
  ])('%s streams start, one item per result, complete and nothing else', async (_case, request) => {
    const res = await request();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const seen = await events(res);
    expect(seen.map((event) => event.event)).toEqual(['start', 'item', 'item', 'item', 'item', 'complete']);
    expect(JSON.parse(seen[0]!.data)).toMatchObject({ query: 'pdf' });
    seen.slice(1, -1).forEach((event, i) => {
      const item = JSON.parse(event.data) as ItemList['itemListElement'][number];
      expect(item).toMatchObject({ '@type': 'ListItem', position: i + 1, item: { '@type': 'SoftwareApplication' } });
    });
    expect(JSON.parse(seen.at(-1)!.data)).toMatchObject({ count: 4 });
  });

  it('a question nothing matches streams start and complete with count 0', async () => {
    const seen = await events(await ask('q=zzqxqzzqxq&stream=1'));
    expect(seen.map((event) => [event.event, JSON.parse(event.data)])).toEqual([
      ['start', { query: 'zzqxqzzqxq', limit: 10 }],
      ['complete', { count: 0, hasMore: false }],
    ]);
  });

  it.each([
    ['text/event-stream', 'sse'],
    ['application/json, text/event-stream', 'json'],
    ['text/event-stream, application/json', 'sse'],
    ['application/json;q=0.5, text/event-stream', 'sse'],
    ['application/ld+json', 'ld+json'],
    ['*/*', 'json'],
    ['text/event-stream;q=0, application/ld+json', 'ld+json'],
    [undefined, 'json'],
  ])('Accept %s negotiates %s', (accept, format) => {
    expect(negotiateAsk(accept)).toBe(format);
  });
});

/** fetch() may not set Sec-Fetch-* (forbidden request headers), so navigations are sent with node:http. */
function navigate(path: string, headers: Record<string, string>): Promise<{ status: number; location: string | undefined; type: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request(server.origin + path, { headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location, type: res.headers['content-type'] }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('browser navigation', () => {
  const browser = { 'Sec-Fetch-Mode': 'navigate', 'Sec-Fetch-Dest': 'document', Accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };

  it('a document navigation is sent to /browse with the question', async () => {
    expect(await navigate('/ask?query=postgres%20mcp', browser)).toMatchObject({ status: 302, location: '/browse?q=postgres%20mcp' });
    expect(await navigate('/ask?question=pdf', browser)).toMatchObject({ status: 302, location: '/browse?q=pdf' });
    expect(await navigate('/ask', browser)).toMatchObject({ status: 302, location: '/browse' });
  });

  it('fetch metadata of a script or an iframe is not a document navigation', async () => {
    expect(await navigate('/ask?q=pdf', { 'Sec-Fetch-Mode': 'cors', 'Sec-Fetch-Dest': 'empty', Accept: 'text/html' })).toMatchObject({
      status: 200,
      type: expect.stringMatching(/^application\/json/),
    });
    expect(await navigate('/ask?q=pdf', { 'Sec-Fetch-Mode': 'navigate', 'Sec-Fetch-Dest': 'iframe' })).toMatchObject({ status: 200 });
  });
});

describe('validation', () => {
  const expect400 = async (res: Response, name: string) => {
    expect(res.status).toBe(400);
    const body = ErrorSchema.parse(await json(res));
    expect(body.message).toContain(`'${name}'`);
  };

  it.each([
    ['query', `query=${'a'.repeat(257)}`],
    ['q', `q=${'a'.repeat(257)}`],
    ['question', `question=${'a'.repeat(257)}`],
    ['query', ''],
    ['query', 'q=%20%20'],
    ['stream', 'q=pdf&stream=true'],
    ['stream', 'q=pdf&stream=0'],
    ['limit', 'q=pdf&limit=51'],
    ['limit', 'q=pdf&limit=0'],
    ['q', 'q=a&q=b'],
  ])('GET: %s (%s) is a 400 naming it', async (name, query) => {
    await expect400(await ask(query), name);
  });

  it('accepts 256 characters', async () => {
    expect((await ask(`q=${'a'.repeat(256)}`)).status).toBe(200);
  });

  it.each([
    ['query', { query: 'a'.repeat(257) }],
    ['query', {}],
    ['stream', { q: 'pdf', stream: 'yes' }],
    ['query', { query: 12 }],
    ['limit', { q: 'pdf', limit: 99 }],
  ])('POST: %s is a 400 naming it', async (name, body) => {
    await expect400(await postAsk(body), name);
  });

  it('POST of a body that is not JSON is 400 and of another content type 415', async () => {
    expect((await server.fetch('/ask', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{' })).status).toBe(400);
    expect((await server.fetch('/ask', { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: 'pdf' })).status).toBe(415);
  });
});
