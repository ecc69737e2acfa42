// Guarantees the headers and errors of SERVICE.md 4, 7 and 8: API-Version on every response, a 400 that
// names the parameter for every limit, 404/405 in the documented shape, and never a 500 for bad input.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorSchema } from '../../src/domain/schemas.ts';
import { json, startInProcess, type TestServer } from '../support/server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startInProcess();
});
afterAll(() => server.close());

const expectError = async (res: Response, status: number, mentions?: string) => {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.headers.get('api-version')).toBe('1');
  const body = ErrorSchema.parse(await json(res));
  if (mentions) expect(body.message).toContain(mentions);
  return body;
};

describe('limits of SERVICE.md section 8', () => {
  it.each([
    ['q', 'q=' + 'a'.repeat(129)],
    ['semantic', 'semantic=' + 'a'.repeat(257)],
    ['types', 'types=' + 'skill,'.repeat(11) + 'mcp'],
    ['category', 'category=' + 'a'.repeat(129)],
    ['owner', 'owner=' + 'a'.repeat(129)],
    ['limit', 'limit=2001'],
    ['limit', 'limit=0'],
    ['limit', 'limit=ten'],
    ['limit', 'limit=1.5'],
    ['offset', 'offset=-1'],
    ['pageSize', 'pageSize=2001'],
    ['type', 'type=robot'],
    ['types', 'types=skill,robot'],
    ['sort', 'sort=random'],
    ['category', 'category=Not%20A%20Slug'],
    ['cursor', 'cursor=not-a-token'],
    ['pageSize', 'limit=10&pageSize=20'],
    ['q', 'q=a&q=b'],
  ])('%s out of bounds (%s) is a 400 naming it', async (name, query) => {
    const body = await expectError(await server.fetch(`/api/v1/listings?${query}`), 400, `'${name}'`);
    expect(body.code).toBe('invalid_parameter');
  });

  it('accepts every parameter at its limit', async () => {
    const res = await server.fetch(`/api/v1/listings?q=${'a'.repeat(128)}&owner=${'a'.repeat(128)}&limit=2000&semantic=${'b'.repeat(256)}`);
    expect(res.status).toBe(200);
    // A category of the longest length passes the length rule; no category is that long, so it is refused as unknown.
    await expectError(await server.fetch(`/api/v1/listings?category=${'a'.repeat(128)}`), 400, 'is not a category of the catalog');
  });

  it('a cursor issued for one query is refused for another', async () => {
    const first = await json<{ cursor: string }>(await server.fetch('/api/v1/listings?type=mcp&limit=5'));
    await expectError(await server.fetch(`/api/v1/listings?type=skill&limit=5&cursor=${first.cursor}`), 400, "'cursor'");
  });
});

describe('API-Version', () => {
  it('is sent on every response, errors and static files included', async () => {
    for (const path of ['/api/v1/listings?limit=1', '/api/v1', '/nope', '/api/v1/listings/nope']) {
      expect((await server.fetch(path)).headers.get('api-version')).toBe('1');
    }
  });

  it('a request asking for version 1 is served; any other version is a 400', async () => {
    expect((await server.fetch('/api/v1/meta', { headers: { 'API-Version': '1' } })).status).toBe(200);
    const body = await expectError(await server.fetch('/api/v1/meta', { headers: { 'API-Version': '2' } }), 400);
    expect(body.code).toBe('unsupported_api_version');
  });

  it('no Sunset or Deprecation header: nothing is deprecated', async () => {
    const res = await server.fetch('/api/v1/listings?limit=1');
    expect(res.headers.get('sunset')).toBeNull();
    expect(res.headers.get('deprecation')).toBeNull();
  });
});

describe('404 and 405', () => {
  it('an unknown path is a 404 in the error shape', async () => {
    expect((await expectError(await server.fetch('/api/v1/nothing-here'), 404)).code).toBe('not_found');
  });

  it('a known path with the wrong method is a 405 with Allow', async () => {
    const res = await server.fetch('/api/v1/listings', { method: 'DELETE' });
    expect(res.headers.get('allow')).toContain('GET');
    expect((await expectError(res, 405)).code).toBe('method_not_allowed');
    const batch = await server.fetch('/api/v1/listings/batch', { method: 'PUT', body: '{}' });
    expect(batch.status).toBe(405);
    expect(batch.headers.get('allow')).toContain('POST');
  });

  it('malformed percent-encoding in a path is an error, not a 500', async () => {
    const res = await server.fetch('/api/v1/listings/%E0%A4%A');
    expect([400, 404]).toContain(res.status);
    ErrorSchema.parse(await json(res));
  });

  it('an Authorization header on a public route is ignored', async () => {
    const res = await server.fetch('/api/v1/listings?limit=1', { headers: { Authorization: 'Bearer whatever' } });
    expect(res.status).toBe(200);
    expect(await res.text()).not.toContain('whatever');
  });
});
