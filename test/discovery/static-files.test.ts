// The shim's static handler keeps what it learned about a build: each path is resolved and its headers
// prepared once, small files are answered from memory (bounded by bytes), larger ones streamed, and a
// conditional request is answered from the prepared validator. A build directory never changes while served,
// so changing files under a running handler shows where the answer comes from.
import { rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStaticFiles } from '../../server/http/static-files.ts';
import { tempDir } from '../support/fixtures.ts';

let root: string;
let server: Server;
let origin: string;

beforeAll(async () => {
  root = tempDir('catalog-static-');
  mkdirSync(join(root, 'docs'));
  writeFileSync(join(root, 'small.txt'), 'small file\n');
  writeFileSync(join(root, 'docs', 'index.html'), '<!doctype html><title>docs</title>');
  writeFileSync(join(root, 'large.txt'), 'x'.repeat(200_000));
  writeFileSync(join(root, 'zipped.json'), JSON.stringify({ a: 'b'.repeat(2000) }));
  writeFileSync(join(root, 'zipped.json.gz'), gzipSync(JSON.stringify({ a: 'b'.repeat(2000) })));
  const files = createStaticFiles(root, { maxCachedFileBytes: 100_000, maxCachedBytes: 150_000 });
  // The handler gives replies; this server writes them as the shim's adapter does (no pipeline around them).
  server = createServer((req, res) => {
    void files.reply({ method: req.method!, path: req.url!.split('?')[0]!, headers: req.headers }).then(async (reply) => {
      if (!reply) {
        res.statusCode = 404;
        res.end('none');
        return;
      }
      res.writeHead(reply.status, reply.headers);
      if (reply.stream) {
        for await (const chunk of reply.stream) res.write(chunk);
        res.end();
      } else res.end(reply.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => {
  server.close();
  rmSync(root, { recursive: true, force: true });
});

describe('the static handler', () => {
  it('answers a small file from memory once it has been served', async () => {
    const first = await fetch(`${origin}/small.txt`);
    expect(await first.text()).toBe('small file\n');
    rmSync(join(root, 'small.txt'));
    const again = await fetch(`${origin}/small.txt`);
    expect(again.status).toBe(200);
    expect(await again.text()).toBe('small file\n');
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
  });

  it('answers If-None-Match with 304 and the prepared headers, without the file', async () => {
    const first = await fetch(`${origin}/docs/`);
    expect(first.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const etag = first.headers.get('etag')!;
    rmSync(join(root, 'docs', 'index.html'));
    const conditional = await fetch(`${origin}/docs/`, { headers: { 'if-none-match': `W/"other", ${etag}` } });
    expect(conditional.status).toBe(304);
    expect(conditional.headers.get('etag')).toBe(etag);
    expect(conditional.headers.get('cache-control')).toMatch(/^public/);
    expect(conditional.headers.get('content-length')).toBeNull();
  });

  it('streams files above the per-file bound from disk on every request', async () => {
    const first = await fetch(`${origin}/large.txt`);
    expect((await first.text()).length).toBe(200_000);
    writeFileSync(join(root, 'large.txt'), 'y'.repeat(200_000));
    const again = await fetch(`${origin}/large.txt`);
    expect(await again.text()).toBe('y'.repeat(200_000));
  });

  it('serves the precompressed sibling with its own validator, and identity to clients without gzip', async () => {
    const zipped = await fetch(`${origin}/zipped.json`, { headers: { 'accept-encoding': 'gzip' } });
    expect(zipped.headers.get('content-encoding')).toBe('gzip');
    expect(zipped.headers.get('vary')).toBe('Accept-Encoding');
    const plain = await fetch(`${origin}/zipped.json`, { headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(plain.headers.get('etag')).not.toBe(zipped.headers.get('etag'));
    expect(await plain.json()).toEqual(await zipped.json());
  });

  it('finds nothing outside the root nor the build manifests', async () => {
    expect((await fetch(`${origin}/missing.txt`)).status).toBe(404);
    expect((await fetch(`${origin}/%2e%2e/%2e%2e/etc/passwd`)).status).toBe(404);
    expect((await fetch(`${origin}/negotiation.json`)).status).toBe(404);
    // A path ending in / is also served as <path>.html (listings/<slug>.html at /listings/<slug>/), never the root's
    // own name with .html: a file beside the root is outside it.
    writeFileSync(`${root}.html`, 'beside the root');
    try {
      for (const path of ['/', '//']) expect((await fetch(`${origin}${path}`)).status, path).toBe(404);
    } finally {
      rmSync(`${root}.html`);
    }
  });
});
