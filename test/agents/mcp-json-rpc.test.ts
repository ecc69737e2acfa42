// Guarantees the MCP wire contract below the SDK: every JSON-RPC error code, 202 for notifications, protocol-version
// negotiation, the stateless 2026-07-28 form, the batching rule per revision, the SSE-wrapped POST, the SSE
// handshake, and GET on the endpoints (discovery JSON, or 405 for a stream probe).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { JSON_RPC_CODES } from '../../server/json-rpc/json-rpc.ts';
import { MCP_VERSIONS } from '../../src/domain/agents/agent-surfaces.ts';
import { json, startServer, type TestServer } from '../support/server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

interface RpcReply {
  jsonrpc: '2.0';
  id: string | number | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

const STATELESS = '2026-07-28';
const meta = (version = STATELESS) => ({
  'io.modelcontextprotocol/protocolVersion': version,
  'io.modelcontextprotocol/clientInfo': { name: 'raw-test', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
});

function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return server.fetch(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function rpc(body: unknown, headers: Record<string, string> = {}, path = '/.well-known/mcp'): Promise<{ status: number; reply: RpcReply }> {
  const res = await post(path, body, headers);
  return { status: res.status, reply: await json<RpcReply>(res) };
}

async function readEvents(res: Response, max = Infinity, signal?: AbortController): Promise<EventSourceMessage[]> {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  while (events.length < max) {
    const { value, done } = await reader.read();
    if (done) break;
    parser.feed(value);
  }
  if (signal) signal.abort();
  else await reader.cancel();
  return events;
}

describe('JSON-RPC error codes', () => {
  it('-32700 for a body that is not JSON', async () => {
    const { status, reply } = await rpc('{"jsonrpc": "2.0", "id": 1, "method": ');
    expect(status).toBe(200);
    expect(reply).toEqual({ jsonrpc: '2.0', id: null, error: { code: JSON_RPC_CODES.parseError, message: expect.stringContaining('Parse error') } });
  });

  it.each([
    ['a string', '"hello"', null],
    ['no jsonrpc member', { id: 1, method: 'ping' }, 1],
    ['jsonrpc 1.0', { jsonrpc: '1.0', id: 2, method: 'ping' }, 2],
    ['no method', { jsonrpc: '2.0', id: 3 }, 3],
    ['an object id', { jsonrpc: '2.0', id: { nested: true }, method: 'ping' }, null],
    ['an empty batch', [], null],
  ])('-32600 for %s', async (_case, body, id) => {
    const { status, reply } = await rpc(body);
    expect(status).toBe(200);
    expect(reply.id).toBe(id);
    expect(reply.error?.code).toBe(JSON_RPC_CODES.invalidRequest);
  });

  it('-32601 for an unknown method', async () => {
    const { reply } = await rpc({ jsonrpc: '2.0', id: 'x', method: 'prompts/list' });
    expect(reply).toMatchObject({ id: 'x', error: { code: JSON_RPC_CODES.methodNotFound } });
  });

  it.each([
    ['an unknown tool', { method: 'tools/call', params: { name: 'rm_rf', arguments: {} } }],
    ['tools/call without a name', { method: 'tools/call', params: { arguments: {} } }],
    ['params that are not an object', { method: 'tools/list', params: [1, 2] }],
    ['resources/read without a uri', { method: 'resources/read', params: {} }],
    ['an unknown resource', { method: 'resources/read', params: { uri: 'ui://catalog/other.html' } }],
  ])('-32602 for %s', async (_case, message) => {
    const { reply } = await rpc({ jsonrpc: '2.0', id: 7, ...message });
    expect(reply).toMatchObject({ id: 7, error: { code: JSON_RPC_CODES.invalidParams } });
  });

  it('error codes come from the named map', () => {
    expect(JSON_RPC_CODES).toMatchObject({ parseError: -32700, invalidRequest: -32600, methodNotFound: -32601, invalidParams: -32602, internalError: -32603 });
  });

  it('a non-JSON content type is a 415 in the catalog error shape', async () => {
    const res = await post('/.well-known/mcp', 'ping', { 'Content-Type': 'text/plain' });
    expect(res.status).toBe(415);
    expect((await json<{ code: string }>(res)).code).toBe('unsupported_media_type');
  });
});

describe('notifications', () => {
  it.each(['/.well-known/mcp', '/mcp', '/.well-known/mcp/sse', '/.well-known/mcp/docs'])('are answered 202 with no body on %s', async (path) => {
    const res = await post(path, { jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(res.status).toBe(202);
    expect(await res.text()).toBe('');
  });

  it('a client response (result without method) is also accepted with 202', async () => {
    const res = await post('/.well-known/mcp', { jsonrpc: '2.0', id: 5, result: {} });
    expect(res.status).toBe(202);
  });
});

describe('initialize and version negotiation', () => {
  it.each(['2025-03-26', '2025-06-18', '2025-11-25'])('answers initialize %s with the same version', async (version) => {
    const { reply } = await rpc({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    expect(reply.result).toMatchObject({ protocolVersion: version, serverInfo: { name: 'catalog' }, capabilities: { tools: {}, resources: {} } });
  });

  it.each(['2024-11-05', '2026-07-28', '1999-01-01'])('answers initialize %s with the newest session revision', async (version) => {
    const { reply } = await rpc({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: version } });
    expect(reply.result?.protocolVersion).toBe('2025-11-25');
  });

  it('rejects an unsupported MCP-Protocol-Version header with 400 and -32022', async () => {
    const { status, reply } = await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'MCP-Protocol-Version': '2023-01-01' });
    expect(status).toBe(400);
    expect(reply.error).toMatchObject({ code: JSON_RPC_CODES.unsupportedProtocolVersion, data: { supported: MCP_VERSIONS, requested: '2023-01-01' } });
  });

  it('/mcp answers the same methods as /.well-known/mcp', async () => {
    for (const method of ['initialize', 'tools/list', 'resources/list', 'ping']) {
      const params = method === 'initialize' ? { protocolVersion: '2025-06-18' } : {};
      const [a, b] = await Promise.all([rpc({ jsonrpc: '2.0', id: 1, method, params }, {}, '/mcp'), rpc({ jsonrpc: '2.0', id: 1, method, params })]);
      expect(a.reply).toEqual(b.reply);
      expect(a.reply.result).toBeDefined();
    }
    const read = await rpc({ jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri: 'ui://catalog/catalog.html' } }, {}, '/mcp');
    expect((read.reply.result as { contents: Array<{ mimeType: string }> }).contents[0]!.mimeType).toMatch(/^text\/html/);
  });
});

describe('the stateless revision 2026-07-28', () => {
  it('server/discover lists the versions, capabilities and cache hints', async () => {
    const { status, reply } = await rpc({ jsonrpc: '2.0', id: 'd', method: 'server/discover', params: { _meta: meta() } });
    expect(status).toBe(200);
    expect(reply.result).toMatchObject({
      resultType: 'complete',
      supportedVersions: MCP_VERSIONS,
      capabilities: { tools: { listChanged: false }, resources: {} },
      ttlMs: expect.any(Number),
      cacheScope: 'public',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'catalog', version: '1.0.0' } },
    });
  });

  it('serves tools/list and resources/list with resultType, ttlMs and cacheScope, and tools/call with resultType', async () => {
    const tools = await rpc(
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta() } },
      { 'MCP-Protocol-Version': STATELESS, 'Mcp-Method': 'tools/list' },
    );
    expect(tools.reply.result).toMatchObject({ resultType: 'complete', ttlMs: 3_600_000, cacheScope: 'public' });
    expect((tools.reply.result!.tools as unknown[]).length).toBe(4);
    const resources = await rpc({ jsonrpc: '2.0', id: 2, method: 'resources/list', params: { _meta: meta() } });
    expect(resources.reply.result).toMatchObject({ resultType: 'complete', ttlMs: expect.any(Number), cacheScope: 'public' });
    const call = await rpc({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { _meta: meta(), name: 'get_catalog_stats', arguments: {} } });
    expect(call.reply.result).toMatchObject({ resultType: 'complete', structuredContent: { total: expect.any(Number) } });
    expect(call.reply.result).not.toHaveProperty('ttlMs');
  });

  it('has no initialize', async () => {
    const { reply } = await rpc({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { _meta: meta(), protocolVersion: STATELESS } });
    expect(reply.error?.code).toBe(JSON_RPC_CODES.methodNotFound);
  });

  it('a header that contradicts _meta is 400 with -32020', async () => {
    const version = await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta() } }, { 'MCP-Protocol-Version': '2025-11-25' });
    expect(version.status).toBe(400);
    expect(version.reply.error?.code).toBe(JSON_RPC_CODES.headerMismatch);
    const method = await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta() } }, { 'Mcp-Method': 'tools/call' });
    expect(method.status).toBe(400);
    expect(method.reply.error?.code).toBe(JSON_RPC_CODES.headerMismatch);
  });

  it('an unknown _meta version is 400 with -32022 and the supported list', async () => {
    const { status, reply } = await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta('2027-01-01') } });
    expect(status).toBe(400);
    expect(reply.error).toMatchObject({ code: JSON_RPC_CODES.unsupportedProtocolVersion, data: { supported: MCP_VERSIONS, requested: '2027-01-01' } });
  });

  it('session-revision results carry no stateless fields', async () => {
    const { reply } = await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'MCP-Protocol-Version': '2025-06-18' });
    expect(reply.result).not.toHaveProperty('resultType');
    expect(reply.result).not.toHaveProperty('ttlMs');
  });
});

describe('batches (2025-03-26 only)', () => {
  const batch = [
    { jsonrpc: '2.0', id: 1, method: 'ping' },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    { jsonrpc: '2.0', id: 3, method: 'nope' },
  ];

  it.each([
    ['no version header', {}],
    ['MCP-Protocol-Version 2025-03-26', { 'MCP-Protocol-Version': '2025-03-26' }],
  ])('are answered with %s', async (_case, headers) => {
    const res = await post('/.well-known/mcp', batch, headers);
    expect(res.status).toBe(200);
    const replies = await json<RpcReply[]>(res);
    expect(replies.map((r) => r.id)).toEqual([1, 2, 3]);
    expect(replies[0]!.result).toEqual({});
    expect(replies[2]!.error?.code).toBe(JSON_RPC_CODES.methodNotFound);
  });

  it.each(['2025-06-18', '2025-11-25'])('are rejected with -32600 from a %s client', async (version) => {
    const { reply } = await rpc(batch, { 'MCP-Protocol-Version': version });
    expect(reply).toMatchObject({ id: null, error: { code: JSON_RPC_CODES.invalidRequest, message: expect.stringContaining('2025-03-26') } });
  });

  it('are rejected when an element speaks the stateless revision', async () => {
    const { reply } = await rpc([{ jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: meta() } }]);
    expect(reply.error?.code).toBe(JSON_RPC_CODES.invalidRequest);
  });

  it('may not carry initialize, and a batch of notifications is 202', async () => {
    const res = await post('/.well-known/mcp', [{ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26' } }]);
    expect((await json<RpcReply[]>(res))[0]!.error?.code).toBe(JSON_RPC_CODES.invalidRequest);
    const only = await post('/.well-known/mcp', [{ jsonrpc: '2.0', method: 'notifications/initialized' }]);
    expect(only.status).toBe(202);
  });
});

describe('SSE forms', () => {
  it('POST /.well-known/mcp/sse answers one message event with the JSON-RPC response', async () => {
    const res = await post('/.well-known/mcp/sse', { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'get_catalog_stats', arguments: {} } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = await readEvents(res);
    expect(events).toHaveLength(1);
    expect(events[0]!.event).toBe('message');
    expect(JSON.parse(events[0]!.data)).toMatchObject({ jsonrpc: '2.0', id: 9, result: { structuredContent: { total: expect.any(Number) } } });
  });

  it('GET /.well-known/mcp/sse is a handshake whose first event names the POST endpoint', async () => {
    const abort = new AbortController();
    const res = await server.fetch('/.well-known/mcp/sse', { headers: { Accept: 'text/event-stream' }, signal: abort.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const [first] = await readEvents(res, 1, abort);
    expect(first!.event).toBe('endpoint');
    expect(first!.data).toMatch(/^\/\.well-known\/mcp\/sse\?sessionId=[0-9a-f-]{36}$/);
    // The server notices the client left and keeps serving.
    expect((await server.fetch('/api/v1/meta')).status).toBe(200);
  });

  it('a POST to an unknown SSE session is 404', async () => {
    const res = await post('/.well-known/mcp/sse?sessionId=00000000-0000-0000-0000-000000000000', { jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(res.status).toBe(404);
  });
});

describe('GET on the MCP endpoints', () => {
  it.each(['/.well-known/mcp', '/.well-known/mcp.json', '/.well-known/mcp/product'])('%s is the discovery document as JSON', async (path) => {
    const res = await server.fetch(path);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = await json<{ endpoint: string; tools: Array<{ name: string }> }>(res);
    expect(body.endpoint).toBe('http://catalog.test/.well-known/mcp');
    expect(body.tools.map((tool) => tool.name)).toEqual(['search_catalog', 'load_skill', 'top_catalog', 'get_catalog_stats']);
  });

  it('/.well-known/mcp/docs is the docs MCP discovery as JSON', async () => {
    const res = await server.fetch('/.well-known/mcp/docs', { headers: { Accept: 'application/json' } });
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect((await json<{ tools: Array<{ name: string }> }>(res)).tools.map((tool) => tool.name)).toEqual(['search_docs', 'get_doc', 'list_docs']);
  });

  it.each(['/.well-known/mcp', '/.well-known/mcp/docs', '/mcp'])('%s answers a stream-only GET (the SDK probe) with 405', async (path) => {
    const res = await server.fetch(path, { headers: { Accept: 'text/event-stream' } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toContain('POST');
  });
});
