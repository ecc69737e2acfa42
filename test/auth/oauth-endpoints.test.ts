// Guarantees SERVICE.md 4.4 and 5: the probes always challenge, the two OAuth metadata documents say exactly
// that nothing is issued, the OAuth endpoints refuse, public routes ignore Authorization, and every URL comes
// from the configured base URL, never from the Host header.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPair } from 'jose';
import { ErrorSchema } from '../../src/domain/schemas.ts';
import { json, startServer, TEST_BASE_URL, type TestServer } from '../support/server.ts';
import { bearer, CHALLENGE, INVALID_TOKEN_CHALLENGE, mint } from './tokens.ts';

// No STAFF_* variables: the default configuration has no staff key at all.
let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

describe('authentication probes', () => {
  it.each(['/oauth/resource', '/agent/auth'])('GET %s is always 401 with the challenge', async (path) => {
    for (const headers of [{}, { Authorization: 'Bearer anything' }] as Array<Record<string, string>>) {
      const res = await server.fetch(path, { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe(CHALLENGE);
      expect(res.headers.get('cache-control')).toBe('no-store');
      const body = ErrorSchema.parse(await json(res));
      expect(body.code).toBe('unauthorized');
      expect(body.resolution).toContain('needs no credential');
    }
  });

  it('POST to a probe is 405 with Allow', async () => {
    const res = await server.fetch('/oauth/resource', { method: 'POST' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
  });
});

describe('without a configured staff key', () => {
  it('staff routes challenge every request, a signed token included', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    for (const path of ['/api/v1/auth/me', '/api/v1/staff/build']) {
      const none = await server.fetch(path);
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toBe(CHALLENGE);
      const signed = await server.fetch(path, { headers: bearer(await mint(privateKey)) });
      expect(signed.status).toBe(401);
      expect(signed.headers.get('www-authenticate')).toBe(INVALID_TOKEN_CHALLENGE);
      expect(ErrorSchema.parse(await json(signed)).code).toBe('unauthorized');
    }
  });
});

describe('GET /.well-known/oauth-protected-resource', () => {
  it('is the RFC 9728 metadata of an anonymous resource', async () => {
    const res = await server.fetch('/.well-known/oauth-protected-resource');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await json(res)).toEqual({
      resource: TEST_BASE_URL,
      resource_name: 'catalog',
      authorization_servers: [TEST_BASE_URL],
      resource_documentation: `${TEST_BASE_URL}/auth.md`,
      bearer_methods_supported: ['header'],
      identity_types_supported: ['anonymous'],
      credential_types_supported: [],
    });
  });
});

describe('GET /.well-known/oauth-authorization-server', () => {
  it('is RFC 8414 metadata of a server that issues nothing', async () => {
    const res = await server.fetch('/.well-known/oauth-authorization-server');
    expect(res.status).toBe(200);
    const body = await json<Record<string, unknown>>(res);
    expect(body).toEqual({
      issuer: TEST_BASE_URL,
      service_documentation: `${TEST_BASE_URL}/auth.md`,
      response_types_supported: [],
      grant_types_supported: [],
      scopes_supported: [],
      agent_auth: { register_uri: `${TEST_BASE_URL}/oauth/register` },
    });
    for (const issuing of ['token_endpoint', 'authorization_endpoint', 'registration_endpoint', 'device_authorization_endpoint', 'jwks_uri'])
      expect(body).not.toHaveProperty(issuing);
  });
});

describe('metadata caching', () => {
  it.each(['/.well-known/oauth-protected-resource', '/.well-known/oauth-authorization-server'])('%s is cacheable for an hour with an ETag', async (path) => {
    const first = await server.fetch(path);
    expect(first.headers.get('cache-control')).toBe('public, max-age=3600');
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect((await server.fetch(path)).headers.get('etag')).toBe(etag);

    const revalidated = await server.fetch(path, { headers: { 'If-None-Match': etag! } });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.get('etag')).toBe(etag);
    expect(await revalidated.text()).toBe('');
    expect((await server.fetch(path, { headers: { 'If-None-Match': `"other", W/${etag}` } })).status).toBe(304);
    expect((await server.fetch(path, { headers: { 'If-None-Match': '"other"' } })).status).toBe(200);
  });

  it('the two documents have different ETags', async () => {
    const a = (await server.fetch('/.well-known/oauth-protected-resource')).headers.get('etag');
    const b = (await server.fetch('/.well-known/oauth-authorization-server')).headers.get('etag');
    expect(a).not.toBe(b);
  });
});

describe('the OAuth endpoints', () => {
  const paths = ['/oauth/authorize', '/oauth/token', '/oauth/register'];

  it.each(paths)('GET %s is 200 stating that no authorization server is offered', async (path) => {
    const res = await server.fetch(`${path}?response_type=code&client_id=x`);
    expect(res.status).toBe(200);
    const body = ErrorSchema.parse(await json(res));
    expect(body.code).toBe('authorization_server_not_offered');
    expect(body.message).toContain('no authorization server');
  });

  it.each(paths)('POST %s is 400 with the same JSON as the GET', async (path) => {
    const get = await json(await server.fetch(path));
    const res = await server.fetch(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&client_id=x&client_secret=y',
    });
    expect(res.status).toBe(400);
    expect(await json(res)).toEqual(get);
  });

  it.each(paths)('DELETE %s is 405', async (path) => {
    const res = await server.fetch(path, { method: 'DELETE' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD, POST');
  });
});

describe('public surfaces ignore Authorization', () => {
  const token = 'bogus-token-3f9a1c';

  it.each([
    ['/api/v1/listings?limit=1', 'GET'],
    ['/api/upstream/listings?limit=1', 'GET'],
    ['/api/v1/catalog/stats', 'GET'],
    ['/api/v1', 'GET'],
    ['/.well-known/oauth-protected-resource', 'GET'],
    ['/oauth/token', 'GET'],
  ])('%s with a bogus Bearer token is answered as without it, never echoing the token', async (path, method) => {
    const plain = await server.fetch(path, { method });
    const withToken = await server.fetch(path, { method, headers: { Authorization: `Bearer ${token}` } });
    expect(withToken.status).toBe(plain.status);
    expect(withToken.headers.get('www-authenticate')).toBeNull();
    const text = await withToken.text();
    expect(text).not.toContain(token);
    withToken.headers.forEach((value) => expect(value).not.toContain(token));
    if (!path.startsWith('/api/v1/listings') && !path.startsWith('/api/upstream/listings')) expect(text).toBe(await plain.text());
  });

  it('POST /api/v1/listings/batch with Basic credentials is 200', async () => {
    const res = await server.fetch('/api/v1/listings/batch', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: 'Basic dXNlcjpwYXNz' },
      body: JSON.stringify({ ids: ['no-such-listing'] }),
    });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ items: [], notFound: ['no-such-listing'] });
  });
});

describe('the base URL', () => {
  /** fetch() may not set Host; node:http sends exactly the headers given. */
  const raw = (path: string, headers: Record<string, string>) =>
    new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
      const url = new URL(server.origin + path);
      const req = request({ host: url.hostname, port: url.port, path, headers }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      });
      req.on('error', reject);
      req.end();
    });

  const forged = { Host: 'evil.example', 'X-Forwarded-Host': 'evil.example', 'X-Forwarded-Proto': 'https', Forwarded: 'host=evil.example;proto=https' };

  it.each([
    '/.well-known/oauth-protected-resource',
    '/.well-known/oauth-authorization-server',
    '/oauth/resource',
    '/agent/auth',
    '/api/v1/auth/me',
    '/api/v1/listings?limit=2',
  ])('%s uses the configured base URL whatever the Host header says', async (path) => {
    const res = await raw(path, forged);
    const challenge = res.headers['www-authenticate'];
    expect(`${String(challenge ?? '')}${res.body}`).not.toContain('evil.example');
    if (challenge !== undefined) expect(challenge).toBe(CHALLENGE);
    else expect(res.body).toContain(TEST_BASE_URL);
  });
});
