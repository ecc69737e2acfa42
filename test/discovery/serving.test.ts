// Guarantees every discovery file of the build is served by the shim's static handler with its content type,
// Cache-Control, a strong ETag that answers If-None-Match with 304, and br/gzip variants that decode to the same
// bytes; and that Accept picks between the media types a file is offered as.
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPRESS_MIN_BYTES } from '../../build/page-compression.ts';
import { negotiateMediaType } from '../../server/http/media-types.ts';
import { startServer, type TestServer } from '../support/server.ts';
import { rawRequest } from './discovery-http.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

const FILES: Array<[path: string, contentType: string]> = [
  ['/llms.txt', 'text/plain; charset=utf-8'],
  ['/llms-full.txt', 'text/plain; charset=utf-8'],
  ['/sitemap.xml', 'application/xml; charset=utf-8'],
  ['/sitemaps/pages-1.xml', 'application/xml; charset=utf-8'],
  ['/sitemaps/categories-1.xml', 'application/xml; charset=utf-8'],
  ['/sitemaps/listings-1.xml', 'application/xml; charset=utf-8'],
  ['/.well-known/api-catalog', 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"'],
  ['/.well-known/ai-catalog.json', 'application/json; charset=utf-8'],
  ['/feeds/listings.json', 'application/ld+json; charset=utf-8'],
  ['/pricing.md', 'text/markdown; charset=utf-8'],
  ['/auth.md', 'text/markdown; charset=utf-8'],
  ['/skills/catalog/SKILL.md', 'text/markdown; charset=utf-8'],
];

describe.each(FILES)('%s', (path, contentType) => {
  it('is served with its content type, a validator and Cache-Control', async () => {
    const res = await rawRequest(server.origin, path, { 'Accept-Encoding': 'identity' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(contentType);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers.etag).toMatch(/^"[^"]+"$/);
    expect(res.headers['cache-control']).toMatch(/^public, max-age=\d+/);
    expect(res.headers['last-modified']).toBeTruthy();
    expect(Number(res.headers['content-length'])).toBe(res.body.length);
    expect(res.body.length).toBeGreaterThan(0);
  });

  it.each([
    ['br', brotliDecompressSync],
    ['gzip', gunzipSync],
  ] as const)('Accept-Encoding: %s gets that encoding, decoding to the same document', async (encoding, decode) => {
    const identity = await rawRequest(server.origin, path, { 'Accept-Encoding': 'identity' });
    const encoded = await rawRequest(server.origin, path, { 'Accept-Encoding': encoding });
    expect(encoded.status).toBe(200);
    if (identity.body.length < COMPRESS_MIN_BYTES) {
      // The build keeps no compressed variant of a file this small (the sitemap index of a small catalog).
      expect(encoded.headers['content-encoding']).toBeUndefined();
      expect(encoded.body.equals(identity.body)).toBe(true);
      return;
    }
    expect(encoded.headers['content-encoding']).toBe(encoding);
    expect(encoded.headers.vary).toMatch(/Accept-Encoding/);
    expect(encoded.headers['content-type']).toBe(contentType);
    expect(encoded.body.length).toBeLessThan(identity.body.length);
    expect(decode(encoded.body).equals(identity.body)).toBe(true);
    expect(encoded.headers.etag).not.toBe(identity.headers.etag);
  });

  it('answers If-None-Match with 304 and no body, for each encoding', async () => {
    for (const encoding of ['identity', 'br', 'gzip']) {
      // (A file too small to have variants is served as identity whatever is asked; the validator still holds.)
      const first = await rawRequest(server.origin, path, { 'Accept-Encoding': encoding });
      const again = await rawRequest(server.origin, path, { 'Accept-Encoding': encoding, 'If-None-Match': String(first.headers.etag) });
      expect(again.status).toBe(304);
      expect(again.body.length).toBe(0);
      expect(again.headers.etag).toBe(first.headers.etag);
      const stale = await rawRequest(server.origin, path, { 'Accept-Encoding': encoding, 'If-None-Match': '"not-this-one"' });
      expect(stale.status).toBe(200);
    }
  });

  it('answers HEAD with the headers and no body', async () => {
    const get = await rawRequest(server.origin, path, { 'Accept-Encoding': 'identity' });
    const head = await rawRequest(server.origin, path, { 'Accept-Encoding': 'identity' }, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers['content-type']).toBe(contentType);
    expect(head.headers['content-length']).toBe(get.headers['content-length']);
    expect(head.headers.etag).toBe(get.headers.etag);
  });
});

describe('content negotiation of a file offered as several media types', () => {
  const LINKSET = 'application/linkset+json; profile="x"';
  it.each([
    [undefined, 0],
    ['*/*', 0],
    ['application/json', 1],
    ['application/json, */*;q=0.1', 1],
    ['application/*', 0],
    ['application/linkset+json', 0],
    ['application/linkset+json, application/json', 0],
    ['application/linkset+json;q=0.5, application/json', 1],
    ['application/json;q=0, */*', 0],
    ['text/html', 0],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 0],
    ['APPLICATION/JSON', 1],
  ] as const)('Accept %s picks offer %i', (accept, expected) => {
    expect(negotiateMediaType(accept, [LINKSET, 'application/json; charset=utf-8'])).toBe(expected);
  });

  it.each([
    ['/.well-known/api-catalog', 'application/json', 'application/json; charset=utf-8'],
    ['/feeds/listings.json', 'application/json', 'application/json; charset=utf-8'],
    ['/.well-known/ai-catalog.json', 'application/ai-catalog+json', 'application/ai-catalog+json'],
  ])('%s: Accept %s gets %s, the same bytes, its own ETag and Vary: Accept', async (path, accept, type) => {
    const byDefault = await rawRequest(server.origin, path, { 'Accept-Encoding': 'identity' });
    const negotiated = await rawRequest(server.origin, path, { 'Accept-Encoding': 'identity', Accept: accept });
    expect(negotiated.status).toBe(200);
    expect(negotiated.headers['content-type']).toBe(type);
    expect(negotiated.headers['content-type']).not.toBe(byDefault.headers['content-type']);
    expect(negotiated.body.equals(byDefault.body)).toBe(true);
    expect(negotiated.headers.etag).not.toBe(byDefault.headers.etag);
    for (const res of [byDefault, negotiated]) expect(String(res.headers.vary).split(/,\s*/)).toEqual(['Accept', 'Accept-Encoding']);
    // A validator of one representation does not validate the other.
    const crossed = await rawRequest(server.origin, path, { 'Accept-Encoding': 'identity', Accept: accept, 'If-None-Match': String(byDefault.headers.etag) });
    expect(crossed.status).toBe(200);
    const same = await rawRequest(server.origin, path, { 'Accept-Encoding': 'identity', Accept: accept, 'If-None-Match': String(negotiated.headers.etag) });
    expect(same.status).toBe(304);
  });

  it('a file offered as one media type ignores Accept and varies only by encoding', async () => {
    const res = await rawRequest(server.origin, '/llms.txt', { Accept: 'application/json' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.headers.vary).toBe('Accept-Encoding');
  });
});
