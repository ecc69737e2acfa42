// Guarantees the fixes of the hardening review (issue 14, defects 1-5): bounded JSON-RPC batches that count
// against the rate limit, request targets reduced to their path, the page security headers and CORS per route
// family, slow-client timeouts answered with 408 and a bounded SSE lifetime, and the conformance nits.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JSON_RPC_CODES } from '../../server/json-rpc/json-rpc.ts';
import { LIMITS } from '../../src/domain/contract/limits.ts';
import { ErrorSchema } from '../../src/domain/schemas.ts';
import { rawRequest } from '../support/raw-http.ts';
import { json, startServer, TEST_BASE_URL, type TestServer } from '../support/server.ts';

interface RpcReply {
  id: number | string | null;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

const post = (path: string, body: unknown, headers: Record<string, string> = {}, target = server) =>
  target.fetch(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

const topCatalog = (id: number, limit = 50) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'top_catalog', arguments: { limit } } });

/** The JSON-RPC payload of a JSON answer or of the one `message` event of an SSE answer. */
async function rpcPayload(res: Response): Promise<unknown> {
  const text = await res.text();
  if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) return JSON.parse(text);
  const data = text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => line.slice(6))
    .join('\n');
  return JSON.parse(data);
}

describe('defect 1: JSON-RPC batches are bounded', () => {
  const JSON_RPC_PATHS = ['/mcp', '/.well-known/mcp', '/.well-known/mcp/sse', '/.well-known/mcp/docs', '/a2a/v1'];

  it.each(JSON_RPC_PATHS)('%s refuses a batch of 600 calls with one clear JSON-RPC error, without running them', async (path) => {
    const started = performance.now();
    const res = await post(
      path,
      Array.from({ length: 600 }, (_, i) => topCatalog(i + 1)),
    );
    const elapsed = performance.now() - started;
    const reply = (await rpcPayload(res)) as RpcReply;
    expect(Array.isArray(reply)).toBe(false);
    expect(reply.id).toBeNull();
    expect(reply.error?.code).toBe(JSON_RPC_CODES.invalidRequest);
    expect(reply.error?.message).toMatch(path === '/a2a/v1' ? /batches are not supported/ : new RegExp(`at most ${LIMITS.jsonRpcBatch.entries}`));
    expect(elapsed).toBeLessThan(2000);
  });

  it('keeps the answers of a batch within the byte budget; entries past it get an error each', async () => {
    const res = await post(
      '/mcp',
      Array.from({ length: LIMITS.jsonRpcBatch.entries }, (_, i) => topCatalog(i + 1, 50)),
    );
    expect(res.status).toBe(200);
    const text = await res.text();
    const replies = JSON.parse(text) as RpcReply[];
    expect(replies).toHaveLength(LIMITS.jsonRpcBatch.entries);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(LIMITS.jsonRpcBatch.responseBytes + LIMITS.jsonRpcBatch.entries * 400);
    expect(replies[0]!.result).toBeDefined();
    const refused = replies.filter((reply) => reply.error);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]!.error).toMatchObject({
      code: JSON_RPC_CODES.invalidRequest,
      message: expect.stringContaining(`${LIMITS.jsonRpcBatch.responseBytes} bytes`),
    });
    expect(replies.map((reply) => reply.id)).toEqual(Array.from({ length: LIMITS.jsonRpcBatch.entries }, (_, i) => i + 1));
  });

  it('counts every entry of a batch against the rate limit', async () => {
    const limited = await startServer({ rateLimit: { max: 10, windowSeconds: 60 } });
    try {
      const batch = Array.from({ length: 6 }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'ping' }));
      const ok = await post('/mcp', batch.slice(0, 5), {}, limited);
      expect(ok.status).toBe(200);
      expect(Number(ok.headers.get('ratelimit-remaining'))).toBe(10 - 5);
      // 6 more entries do not fit in the 5 left, though it is a single HTTP request.
      const res = await post('/mcp', batch, {}, limited);
      expect(res.status).toBe(429);
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(ErrorSchema.parse(await json(res)).message).toContain('batch of 6');
    } finally {
      await limited.close();
    }
  });
});

describe('defect 2: absolute-form request targets', () => {
  const get = (target: string, extra = '') => rawRequest(server.origin, [`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${extra}\r\n`]);

  it('are reduced to their path: no foreign URL is echoed into next', async () => {
    const answer = await get('http://evil.example/api/v1/listings?limit=1');
    expect(answer.status).toBe(200);
    expect(answer.body).not.toContain('evil.example');
    const next = (JSON.parse(answer.body) as { next: string }).next;
    expect(next.startsWith(`${TEST_BASE_URL}/api/v1/listings?`)).toBe(true);
  });

  it('/browse in absolute form is the page, and a 404 names only the path', async () => {
    const page = await get('http://evil.example/browse?q=postgres', 'Accept: text/html\r\n');
    expect(page.status).toBe(200);
    expect(page.body).not.toContain('evil.example');
    const missing = await get('https://evil.example/nothing-here');
    expect(missing.status).toBe(404);
    expect(missing.body).not.toContain('evil.example');
    expect(ErrorSchema.parse(JSON.parse(missing.body)).message).toContain('/nothing-here');
  });

  it('a double-slash path is not a network-path reference in next, and a target that is no path is a 400', async () => {
    const answer = await get('//evil.example/api/v1/listings?limit=1');
    expect(answer.body).not.toContain('//evil.example');
    const bad = await get('evil.example/api/v1/listings');
    expect(bad.status).toBe(400);
    expect(ErrorSchema.parse(JSON.parse(bad.body)).code).toBe('invalid_parameter');
  });
});

describe('defect 3: security headers and CORS per route family', () => {
  it.each(['/', '/browse?q=postgres', '/mcp', '/docs/', '/login', '/no-such-page'])('%s carries CSP, frame protection and Referrer-Policy', async (path) => {
    const res = await server.fetch(path, { headers: { Accept: 'text/html' } });
    const csp = res.headers.get('content-security-policy') ?? '';
    for (const directive of ["default-src 'self'", "script-src 'self'", "object-src 'none'", "frame-ancestors 'none'"]) expect(csp).toContain(directive);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
  });

  it.each(['/api/v1/listings?limit=1', '/api/v1/listings/batch', '/openapi.json', '/mcp', '/a2a/v1', '/ask?q=x', '/.well-known/oauth-protected-resource'])(
    '%s is open to every origin',
    async (path) => {
      const res = await server.fetch(path, {
        method: path.endsWith('batch') || path === '/a2a/v1' ? 'OPTIONS' : 'GET',
        headers: { Origin: 'https://elsewhere.example' },
      });
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
    },
  );

  it.each(['/api/v1/auth/me', '/api/v1/staff/build', '/v1/staff/reload', '/oauth/resource', '/agent/auth', '/oauth/token', '/metrics'])(
    '%s sends no CORS headers, and its preflight allows nothing',
    async (path) => {
      const res = await server.fetch(path, { headers: { Origin: 'https://elsewhere.example', Authorization: 'Bearer x' } });
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      const preflight = await server.fetch(path, {
        method: 'OPTIONS',
        headers: { Origin: 'https://elsewhere.example', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'authorization' },
      });
      expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
      expect(preflight.headers.get('access-control-allow-headers')).toBeNull();
    },
  );

  it('no preflight allows Authorization', async () => {
    const preflight = await server.fetch('/api/v1/listings', {
      method: 'OPTIONS',
      headers: { Origin: 'https://elsewhere.example', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'authorization' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).not.toContain('authorization');
  });
});

describe('defect 4: slow clients', () => {
  let slow: TestServer;
  beforeAll(async () => {
    slow = await startServer(
      {},
      {},
      {
        HTTP_BODY_TIMEOUT_MS: '400',
        HTTP_HEADERS_TIMEOUT_MS: '400',
        HTTP_REQUEST_TIMEOUT_MS: '5000',
        SSE_KEEP_ALIVE_SECONDS: '1',
        SSE_MAX_LIFETIME_SECONDS: '2',
      },
    );
  });
  afterAll(() => slow?.close());

  it('a body sent a byte at a time is answered 408 at the body timeout', async () => {
    const head = `POST /ask HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n`;
    const answer = await rawRequest(slow.origin, [head, '{', '"', 'q'], { gapMs: 300, timeoutMs: 4000 });
    expect(answer.status).toBe(408);
    expect(ErrorSchema.parse(JSON.parse(answer.body)).code).toBe('request_timeout');
    expect(answer.ms).toBeLessThan(2500);
  });

  it('headers sent slowly are answered 408 (not a 400 after a minute)', async () => {
    const answer = await rawRequest(
      slow.origin,
      ['GET /api/v1/meta HTTP/1.1\r\n', 'Host: 127.0.0.1\r\n', 'X-A: 1\r\n', 'X-B: 1\r\n', 'X-C: 1\r\n', 'X-D: 1\r\n'],
      { gapMs: 300, timeoutMs: 4000 },
    );
    expect(answer.status).toBe(408);
    expect(ErrorSchema.parse(JSON.parse(answer.body)).code).toBe('request_timeout');
    expect(answer.ms).toBeLessThan(3000);
  });

  it('the MCP SSE stream sends keep-alives and ends at its maximum lifetime', async () => {
    const started = performance.now();
    const res = await slow.fetch('/.well-known/mcp/sse', { headers: { Accept: 'text/event-stream' } });
    expect(res.status).toBe(200);
    const text = await res.text();
    const elapsed = performance.now() - started;
    expect(text).toContain('event: endpoint');
    expect(text).toContain(': keep-alive');
    expect(text).toContain('maximum lifetime');
    expect(elapsed).toBeGreaterThan(1500);
    expect(elapsed).toBeLessThan(4000);
  });
});

describe('defect 5: conformance', () => {
  it.each(['PUT', 'DELETE', 'PATCH', 'POST'])('%s on a static file is 405 with Allow: GET, HEAD', async (method) => {
    const res = await server.fetch('/robots.txt', { method });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
    expect(ErrorSchema.parse(await json(res)).code).toBe('method_not_allowed');
  });

  it('GET /api/v1/listings/batch is 405 with Allow: POST, and so is PUT', async () => {
    for (const method of ['GET', 'PUT']) {
      const res = await server.fetch('/api/v1/listings/batch', { method });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    }
  });

  it('_meta.protocolVersion given as an object is a JSON-RPC invalid params naming the field', async () => {
    const res = await post('/mcp', { jsonrpc: '2.0', id: 7, method: 'tools/list', params: { _meta: { protocolVersion: { x: 1 } } } });
    const reply = (await json(res)) as RpcReply;
    expect(reply.id).toBe(7);
    expect(reply.error?.code).toBe(JSON_RPC_CODES.invalidParams);
    expect(reply.error?.message).toContain('protocolVersion');
    expect(reply.error?.message).not.toContain('[object Object]');
  });

  it('a parse error on /.well-known/mcp/sse is answered as an event stream', async () => {
    const res = await post('/.well-known/mcp/sse', '{not json');
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(((await rpcPayload(res)) as RpcReply).error?.code).toBe(JSON_RPC_CODES.parseError);
  });

  it('an HTTP/1.1 request without Host is a 400 with the documented error body', async () => {
    const answer = await rawRequest(server.origin, ['GET /api/v1/meta HTTP/1.1\r\nConnection: close\r\n\r\n']);
    expect(answer.status).toBe(400);
    expect(ErrorSchema.parse(JSON.parse(answer.body)).message).toContain('Host');
  });

  it('CONNECT is answered 405', async () => {
    const answer = await rawRequest(server.origin, ['CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example:443\r\n\r\n']);
    expect(answer.status).toBe(405);
    expect(ErrorSchema.parse(JSON.parse(answer.body)).code).toBe('method_not_allowed');
  });
});
