// A first start serves its build's pages as soon as they are rendered, while the build still writes the rest of the
// site: the names at the top of the site that hold the pages are served as they are (their .br/.gz may be half
// written), every other path answers 503 with Retry-After, and once the build ends the whole site is served. Real
// files on disk; the handler's replies as the pipeline gets them.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GrowingStaticFiles, type FileRequest } from '../../server/http/static-files.ts';
import { tempDir } from '../support/fixtures.ts';

let root: string;
let files: GrowingStaticFiles;
const page = `<!doctype html><title>home</title>${'x'.repeat(2000)}`;

beforeAll(() => {
  root = tempDir('catalog-growing-site-');
  mkdirSync(join(root, 'listings'), { recursive: true });
  writeFileSync(join(root, 'index.html'), page);
  writeFileSync(join(root, 'index.html.gz'), gzipSync(page));
  writeFileSync(join(root, 'listings', 'pdf.html'), '<!doctype html><title>pdf</title>');
  writeFileSync(join(root, 'llms.txt'), 'half of it');
  files = new GrowingStaticFiles(root);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const get = (path: string, headers: FileRequest['headers'] = {}): FileRequest => ({ method: 'GET', path, headers });

describe('the static files of a first start while its build goes on', () => {
  it('serves nothing before the pages are rendered (the pipeline says the site is being built)', async () => {
    expect(await files.reply(get('/'))).toBeUndefined();
    expect(files.has('/index.html')).toBe(false);
    expect(await files.exists('/')).toBe(false);
  });

  it('then serves the pages as they are, and answers 503 for everything the build still writes', async () => {
    files.pagesReady(['index.html', 'listings']);
    const home = await files.reply(get('/', { 'accept-encoding': 'gzip, br' }));
    expect(home?.status).toBe(200);
    expect(home?.headers?.['Content-Encoding']).toBeUndefined();
    expect(String(home?.body)).toBe(page);
    // A listing's page is one file, listings/<slug>.html, at its URL with and without the slash.
    for (const path of ['/listings/pdf/', '/listings/pdf']) expect(String((await files.reply(get(path)))?.body), path).toContain('<title>pdf</title>');
    // A page that is not there is not there: the pages are complete.
    expect(await files.reply(get('/listings/none'))).toBeUndefined();
    // llms.txt is on disk but may be half written; a path not written yet may be on its way.
    for (const path of ['/llms.txt', '/sitemap.xml', '/.well-known/api-catalog']) {
      const reply = await files.reply(get(path, { accept: 'application/json' }));
      expect(reply?.status, path).toBe(503);
      expect(reply?.headers?.['Retry-After'], path).toBe('10');
      expect(JSON.parse(String(reply?.body))).toMatchObject({ code: 'service_unavailable', message: expect.stringContaining('still being written') });
    }
    const browser = await files.reply(get('/llms.txt', { accept: 'text/html' }));
    expect(browser?.status).toBe(503);
    expect(String(browser?.body)).toContain('This file is still being written');
    expect(files.has('/llms.txt')).toBe(false);
    expect(await files.exists('/llms.txt')).toBe(false);
  });

  it('serves the whole site, compressed copies included, once the build has ended', async () => {
    writeFileSync(join(root, 'llms.txt'), 'all of it\n');
    files.finished();
    const home = await files.reply(get('/', { 'accept-encoding': 'gzip' }));
    expect(home?.headers?.['Content-Encoding']).toBe('gzip');
    const llms = await files.reply(get('/llms.txt'));
    expect(llms?.status).toBe(200);
    expect(String(llms?.body)).toBe('all of it\n');
    expect(await files.reply(get('/sitemap.xml'))).toBeUndefined();
    // A late word that the pages are ready changes nothing once the build has ended.
    files.pagesReady(['index.html']);
    expect((await files.reply(get('/llms.txt')))?.status).toBe(200);
  });
});
