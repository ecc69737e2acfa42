// The site stage's file work around the renderers: each renderer's output is merged into site/ (a folder the site
// lacks moves whole; folders both have are merged; a file both have is the later one's), the tree is walked file by
// file, and the stages after it write no file under the names that hold the pages, which a first start serves while
// they run. Real folders on disk.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mergeInto } from '../../build/stages/site-stage.ts';
import { SiteWriter } from '../../build/site-writer.ts';
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

describe('the writer of the later stages', () => {
  it('refuses a file under a name that holds the pages, and writes beside them', () => {
    const site = tree(join(root, 'c', 'site'), { 'index.html': 'home', 'docs/index.html': 'docs' });
    const writer = new SiteWriter(site, { pageEntries: new Set(['index.html', 'docs']) });
    expect(() => writer.write({ path: '/docs/extra.md', contentType: 'text/markdown', body: '# extra' })).toThrow(
      /refusing to write \/docs\/extra\.md: \/docs holds the site's pages/,
    );
    expect(() => writer.write({ path: '/index.html', contentType: 'text/html', body: 'other' })).toThrow(/refusing to write/);
    writer.write({ path: '/llms.txt', contentType: 'text/plain', body: 'llms' });
    writer.write({ path: '/docs.md', contentType: 'text/markdown', body: '# docs' });
    expect(readFileSync(join(site, 'llms.txt'), 'utf8')).toBe('llms');
    expect(readFileSync(join(site, 'index.html'), 'utf8')).toBe('home');
    expect(existsSync(join(site, 'docs', 'extra.md'))).toBe(false);
  });
});
