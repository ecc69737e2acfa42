// Property-based tests of the whole interface (fast-check): every operation of the operations table, with
// arbitrary values for its query parameters, path ids, headers and JSON bodies, against one real server.
// The properties: no answer is a 5xx, every answer comes within a few seconds (no hang), and every error body
// has the documented shape. Run counts are bounded so the file takes seconds, not minutes.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/domain/contract/operations.ts';
import { ErrorSchema } from '../../src/domain/schemas.ts';
import { startServer, type TestServer } from '../support/server.ts';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 60);
const HANG_MS = 5000;

let server: TestServer;
beforeAll(async () => {
  server = await startServer({}, {}, { METRICS_PUBLIC: 'true' });
});
afterAll(() => server.close());

interface Outcome {
  status: number;
  contentType: string;
  body: string;
}

/** One request; a hang is a failure of the property, not a test timeout. */
async function send(path: string, init: RequestInit = {}): Promise<Outcome> {
  const res = await server.fetch(path, { ...init, redirect: 'manual', signal: AbortSignal.timeout(HANG_MS) });
  const contentType = res.headers.get('content-type') ?? '';
  if (contentType.startsWith('text/event-stream') && res.body) {
    // The MCP handshake stream stays open by design: its first event is the answer.
    const reader = res.body.getReader();
    const first = await reader.read();
    await reader.cancel();
    return { status: res.status, contentType, body: new TextDecoder().decode(first.value) };
  }
  const body = init.method === 'HEAD' ? '' : await res.text();
  return { status: res.status, contentType, body };
}

function expectSane(outcome: Outcome, what: string): void {
  expect(outcome.status, `${what} → ${outcome.status} ${outcome.body.slice(0, 300)}`).toBeLessThan(500);
  if (outcome.status >= 400 && outcome.contentType.startsWith('application/json') && outcome.body !== '') {
    const parsed = JSON.parse(outcome.body) as unknown;
    // JSON-RPC endpoints answer their own envelope; everything else the documented error shape.
    if (!(typeof parsed === 'object' && parsed !== null && 'jsonrpc' in parsed))
      expect(ErrorSchema.safeParse(parsed).success, `${what}: ${outcome.body.slice(0, 300)}`).toBe(true);
  }
}

/** Strings that break parsers: unicode, control and format characters, escapes, traversal, huge and empty. */
const nasty = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom(
    '',
    ' ',
    '%',
    '%zz',
    '%00',
    '..',
    '../../etc/passwd',
    '\u0000',
    '\uD800',
    '\u202E',
    '-1',
    '0',
    '1e309',
    'NaN',
    'null',
    '[]',
    '{}',
    '"',
    "'",
    '\\',
    'a'.repeat(5000),
    '9'.repeat(400),
    '  postgres  ',
    'skill,mcp,',
    ',,,',
    'A%2FB',
    '%2e%2e%2f',
  ),
  fc.integer().map(String),
  fc.double().map(String),
);

/** Valid header values (fetch refuses CR, LF and non-Latin-1): printable ASCII, often edge-like. */
const headerValue = fc.oneof(
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 200 }),
  fc.constantFrom(
    '',
    '1',
    '2',
    '0',
    'application/json',
    'text/event-stream',
    '*/*',
    'text/html;q=0',
    'Bearer ',
    'Bearer a.b.c',
    'Basic eA==',
    '2025-03-26',
    '2026-07-28',
    '9999-99-99',
    'W/"x"',
    '"x"',
    'br, gzip',
    'x'.repeat(4000),
  ),
);

const HEADER_NAMES = [
  'Accept',
  'API-Version',
  'Content-Type',
  'Idempotency-Key',
  'MCP-Protocol-Version',
  'Mcp-Method',
  'Mcp-Session-Id',
  'X-Request-Id',
  'X-Forwarded-For',
  'Authorization',
  'If-None-Match',
  'Accept-Encoding',
  'Last-Event-ID',
  'Origin',
  'Sec-Fetch-Mode',
  'Sec-Fetch-Dest',
];
const headers = fc.dictionary(fc.constantFrom(...HEADER_NAMES), headerValue, { maxKeys: 4 });

const fill = (path: string, id: string) => path.replace('{id}', id);
const routeOps = OPERATIONS.filter((op) => op.servedBy === 'route');
const getOps = OPERATIONS.filter((op) => op.method === 'GET');
const postOps = routeOps.filter((op) => op.method === 'POST');

describe('the interface under arbitrary input: no 5xx, no hang', () => {
  it('GET with arbitrary query parameters (known names and others), on every GET operation', async () => {
    const names = [...new Set(getOps.flatMap((op) => (op.query ?? []).map((p) => p.name)))];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...getOps),
        fc.array(fc.tuple(fc.oneof(fc.constantFrom(...names), fc.string({ maxLength: 10 })), nasty), { maxLength: 6 }),
        async (op, params) => {
          const query = new URLSearchParams(params).toString();
          const path = `${fill(op.paths[0]!, 'vercel-react-best-practices')}${query ? `?${query}` : ''}`;
          expectSane(await send(path, { headers: { Accept: 'application/json' } }), `GET ${path}`);
        },
      ),
      { numRuns: RUNS * 3 },
    );
  });

  it('arbitrary path ids, encoded or raw, on every operation with an id', async () => {
    const idOps = OPERATIONS.filter((op) => op.pathParams);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...idOps), nasty, fc.boolean(), async (op, id, encode) => {
        // Raw: only what a URL can carry unencoded (the rest is encoded anyway by URL parsing).
        const wellFormed = id.toWellFormed();
        const segment = encode
          ? encodeURIComponent(wellFormed)
          : wellFormed.replace(/[^\x21-\x7e]/gu, (c) => encodeURIComponent(c)).replace(/[?#]/g, encodeURIComponent);
        const path = fill(op.paths[0]!, segment);
        expectSane(await send(path), `${op.method} ${path}`);
      }),
      { numRuns: RUNS * 2 },
    );
  });

  it('arbitrary headers on every operation', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...OPERATIONS), headers, async (op, hdrs) => {
        const path = fill(op.paths[0]!, 'vercel-react-best-practices');
        const init: RequestInit = { method: op.method, headers: hdrs };
        if (op.method === 'POST') init.body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', ids: ['x'], query: 'postgres' });
        expectSane(await send(path, init), `${op.method} ${path} ${JSON.stringify(hdrs).slice(0, 200)}`);
      }),
      { numRuns: RUNS * 3 },
    );
  });

  it('arbitrary JSON bodies (and non-JSON ones) on every POST operation', async () => {
    const rpcShaped = fc.record(
      {
        jsonrpc: fc.oneof(fc.constant('2.0'), fc.jsonValue()),
        id: fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.constant(null), fc.jsonValue()),
        method: fc.oneof(
          fc.constantFrom('initialize', 'ping', 'tools/list', 'tools/call', 'resources/list', 'resources/read', 'message/send', 'SendMessage', 'tasks/get'),
          fc.string({ maxLength: 12 }),
        ),
        params: fc.oneof(
          fc.jsonValue(),
          fc.record(
            {
              name: fc.constantFrom('search_catalog', 'load_skill', 'top_catalog', 'get_catalog_stats', 'search_docs', 'get_doc', 'nope'),
              arguments: fc.dictionary(fc.constantFrom('query', 'limit', 'type', 'slug', 'id', 'sort', 'category'), fc.oneof(nasty, fc.jsonValue())),
            },
            { requiredKeys: [] },
          ),
          fc.record({ _meta: fc.dictionary(fc.constantFrom('protocolVersion', 'io.modelcontextprotocol/protocolVersion', 'progressToken'), fc.jsonValue()) }),
          fc.record({
            message: fc.record(
              {
                role: fc.constantFrom('user', 'agent', 'x'),
                messageId: fc.string(),
                parts: fc.array(fc.record({ kind: fc.constantFrom('text', 'data', 'file'), text: nasty }), { maxLength: 3 }),
              },
              { requiredKeys: [] },
            ),
          }),
        ),
      },
      { requiredKeys: [] },
    );
    const body = fc.oneof(
      fc.jsonValue().map((v) => JSON.stringify(v)),
      rpcShaped.map((v) => JSON.stringify(v)),
      fc.array(rpcShaped, { maxLength: 25 }).map((v) => JSON.stringify(v)),
      fc.record({ ids: fc.oneof(fc.array(nasty, { maxLength: 30 }), fc.jsonValue()) }, { requiredKeys: [] }).map((v) => JSON.stringify(v)),
      fc
        .record({ query: fc.oneof(nasty, fc.jsonValue()), q: nasty, question: nasty, stream: fc.jsonValue(), limit: fc.jsonValue() }, { requiredKeys: [] })
        .map((v) => JSON.stringify(v)),
      fc.string({ maxLength: 200 }),
      fc.constantFrom('', '{', '[', 'null', '[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{}}}'),
    );
    const contentType = fc.constantFrom(
      'application/json',
      'application/json; charset=utf-8',
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/problem+json',
      '',
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...postOps), body, contentType, async (op, text, type) => {
        const init: RequestInit = {
          method: 'POST',
          body: text,
          headers: type ? { 'Content-Type': type, Accept: 'application/json, text/event-stream' } : { Accept: 'application/json, text/event-stream' },
        };
        expectSane(await send(op.paths[0]!, init), `POST ${op.paths[0]} ${type} ${text.slice(0, 200)}`);
      }),
      { numRuns: RUNS * 4 },
    );
  });

  it('arbitrary methods and paths never reach a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'),
        fc.oneof(
          fc.constantFrom(...OPERATIONS.flatMap((op) => op.paths)).map((p) => fill(p, 'x')),
          fc.webPath(),
          fc.constantFrom('/_astro/../../package.json', '/%2e%2e/%2e%2e/etc/passwd', '/listings/%00/', '//x', '/shards/../catalog.db'),
        ),
        async (method, path) => {
          expectSane(await send(path.startsWith('/') ? path : `/${path}`, { method }), `${method} ${path}`);
        },
      ),
      { numRuns: RUNS * 2 },
    );
  });

  it('no 5xx was counted by the server over the whole run', async () => {
    const text = await (await send('/metrics')).body;
    const fives = text.split('\n').filter((line) => line.startsWith('catalog_http_requests_total{') && /status="5\d\d"/.test(line));
    expect(fives).toEqual([]);
  });
});
