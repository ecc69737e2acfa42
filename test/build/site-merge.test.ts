// The site stage's file work around the renderers: each renderer's output is merged into site/ (a folder the site
// lacks moves whole; folders both have are merged; a file both have is the later one's), the files the renderers
// listed are compressed once each, and the stages beside and after it write no file under the names that hold the
// pages, which a first start serves while they run. Real folders on disk.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { mergeInto, precompress } from '../../build/stages/site-stage.ts';
import { SiteTops } from '../../build/site-tops.ts';
import { LARGE_FILE_BYTES, LARGE_FILE_COMPRESSION, SiteWriter } from '../../build/site-writer.ts';
import { walkFiles } from '../../build/walk-files.ts';
import { tempDir } from '../support/fixtures.ts';

const root = tempDir('catalog-site-merge-');
afterAll(() => rmSync(root, { recursive: true, force: true }));

function tree(dir: string, files: Record<string, string>): string {
  for (const [path, body] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), body);
  }
  return dir;
}

describe("merging the renderers' output into the site", () => {
  it('moves a share into a site that does not exist yet as it is', () => {
    const share = tree(join(root, 'a', 'client'), { 'index.html': 'home 0', 'listings/pdf/index.html': 'pdf' });
    const site = join(root, 'a', 'site');
    mergeInto(share, site);
    expect(existsSync(share)).toBe(false);
    expect([...walkFiles(site)].sort()).toEqual(['index.html', 'listings/pdf/index.html']);
  });

  it("adds another share's pages, keeps the site's, and takes the shared pages from the share", () => {
    const site = tree(join(root, 'b', 'site'), { 'index.html': 'home 0', 'listings/pdf/index.html': 'pdf', 'owners/acme/index.html': 'acme' });
    const share = tree(join(root, 'b', 'client'), {
      'index.html': 'home 1',
      'listings/csv/index.html': 'csv',
      'listings/csv/files/a.txt': 'a',
      'categories/data/index.html': 'data',
      '_astro/site.css': 'css',
    });
    mergeInto(share, site);
    expect(existsSync(share)).toBe(false);
    expect([...walkFiles(site)].sort()).toEqual([
      '_astro/site.css',
      'categories/data/index.html',
      'index.html',
      'listings/csv/files/a.txt',
      'listings/csv/index.html',
      'listings/pdf/index.html',
      'owners/acme/index.html',
    ]);
    expect(readFileSync(join(site, 'index.html'), 'utf8')).toBe('home 1');
    expect(readFileSync(join(site, 'listings', 'pdf', 'index.html'), 'utf8')).toBe('pdf');
  });
});

describe("compressing the renderers' files", () => {
  it('compresses what the lists name, a page every share lists once, and nothing else', async () => {
    const large = (n: number) => `<p>${'page '.repeat(4000)}${n}</p>`;
    const site = tree(join(root, 'e', 'site'), {
      'index.html': large(0),
      '_astro/site.css': `a{}${' '.repeat(600)}`,
      'listings/a/index.html': large(1),
      'listings/b/index.html': large(2),
      // Written beside the site stage by another stage, which compresses its own files: not in any list.
      'shards/all/page-0001.json': `[${'1,'.repeat(1000)}1]`,
    });
    const lists = [
      tree(join(root, 'e'), { 'compress-0.txt': 'index.html\n_astro/site.css\nlistings/a/index.html\n' }),
      tree(join(root, 'e'), { 'compress-1.txt': 'index.html\n_astro/site.css\nlistings/b/index.html\n' }),
    ].map((dir, share) => join(dir, `compress-${share}.txt`));
    const progress: [number, number][] = [];
    const compressed = await precompress(site, lists, (done, total) => progress.push([done, total]));
    expect(compressed.files).toBe(4);
    expect(progress.at(-1)).toEqual([6, 6]);
    for (const path of ['index.html', '_astro/site.css', 'listings/a/index.html', 'listings/b/index.html']) {
      expect(readFileSync(join(site, `${path}.gz`)).length, path).toBeGreaterThan(0);
      expect(existsSync(join(site, `${path}.br`)), path).toBe(true);
    }
    expect(existsSync(join(site, 'shards/all/page-0001.json.br'))).toBe(false);
  });
});

describe('the writer of the later stages', () => {
  it('refuses a file under a name that holds the pages, and writes beside them', async () => {
    const site = tree(join(root, 'c', 'site'), { 'index.html': 'home', 'docs/index.html': 'docs' });
    const writer = new SiteWriter(site, { pageEntries: new Set(['index.html', 'docs']) });
    await expect(writer.write({ path: '/docs/extra.md', contentType: 'text/markdown', body: '# extra' })).rejects.toThrow(
      /refusing to write \/docs\/extra\.md: \/docs holds the site's pages/,
    );
    await expect(writer.write({ path: '/index.html', contentType: 'text/html', body: 'other' })).rejects.toThrow(/refusing to write/);
    await writer.write({ path: '/llms.txt', contentType: 'text/plain', body: 'llms' });
    await writer.write({ path: '/docs.md', contentType: 'text/markdown', body: '# docs' });
    await writer.finish();
    expect(readFileSync(join(site, 'llms.txt'), 'utf8')).toBe('llms');
    expect(readFileSync(join(site, 'index.html'), 'utf8')).toBe('home');
    expect(existsSync(join(site, 'docs', 'extra.md'))).toBe(false);
  });

  it("shares the names of the site with the site stage running beside it: neither writes under the other's", async () => {
    const site = join(root, 'd', 'site');
    const tops = new SiteTops();
    const writer = new SiteWriter(site, { tops });
    await writer.write({ path: '/shards/all/page-0001.json', contentType: 'application/json', body: '[]' });
    // The site stage claims the names of its renderers' output as it merges it: one a writer took is refused.
    expect(() => tops.claim('shards', 'pages')).toThrow(/the site's pages include \/shards, where a later stage writes its files/);
    tops.claim('listings', 'pages');
    await expect(writer.write({ path: '/listings/x.json', contentType: 'application/json', body: '{}' })).rejects.toThrow(
      /refusing to write \/listings\/x\.json: \/listings holds the site's pages/,
    );
    // The manifests the writers persist at the top are theirs from the start, never taken for pages.
    expect(tops.isFiles('content-types.json')).toBe(true);
    expect(tops.pages()).toEqual(['listings']);
    await writer.finish();
  });

  it('compresses large files off the main thread into the bytes a synchronous compression gives, and merges the manifests of two writers', async () => {
    const site = join(root, 'e', 'site');
    const tops = new SiteTops();
    const shards = new SiteWriter(site, { tops });
    const discovery = new SiteWriter(site, { tops });
    const body = Buffer.from(JSON.stringify(Array.from({ length: 4000 }, (_, i) => ({ id: `skill:o/r#${i}`, installs: i % 97 }))));
    await Promise.all(Array.from({ length: 40 }, (_, i) => shards.write({ path: `/shards/all/page-${i}.json`, contentType: 'application/json', body })));
    await discovery.write({ path: '/.well-known/api-catalog', contentType: 'application/linkset+json', body: '{}' });
    await shards.write({ path: '/shards/export/list', contentType: 'application/jsonl', body: 'x' });
    await shards.finish();
    await discovery.finish();
    const page = join(site, 'shards', 'all', 'page-39.json');
    expect(readFileSync(page).equals(body)).toBe(true);
    // A large file: compressed at the large files' levels.
    expect(body.length).toBeGreaterThan(LARGE_FILE_BYTES);
    expect(
      readFileSync(`${page}.br`).equals(
        brotliCompressSync(body, {
          params: { [constants.BROTLI_PARAM_QUALITY]: LARGE_FILE_COMPRESSION.brotliQuality, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
        }),
      ),
    ).toBe(true);
    expect(readFileSync(`${page}.gz`).equals(gzipSync(body, { level: LARGE_FILE_COMPRESSION.gzipLevel }))).toBe(true);
    // Both writers' entries, in key order whichever finished first.
    expect(Object.keys(JSON.parse(readFileSync(join(site, 'content-types.json'), 'utf8')) as object)).toEqual([
      '/.well-known/api-catalog',
      '/shards/export/list',
    ]);
  });
});
