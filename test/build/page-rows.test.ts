// Guarantees the page rows the index stage writes (src/artifacts/page-rows.ts) say of every listing what its line of
// listings.jsonl says, in the same order, and that the renderers' catalog read from them (loadPageData, which parses
// only the lines it shows whole) has the top lists, ranks and copy groups a parse of every line gives.
import { hash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { INDEX_STAGE, runBuild } from '../../build/build-pipeline.ts';
import { fileLines } from '../../src/artifacts/file-lines.ts';
import { readPageRows, RUNTIME_PAGE_ROWS_FILE } from '../../src/artifacts/page-rows.ts';
import { readRuntimeManifest } from '../../src/artifacts/runtime-manifest.ts';
import { categoryKey, TopListsCollector } from '../../src/catalog-view/catalog-view.ts';
import { LISTING_TYPES } from '../../src/domain/listing/listing-types.ts';
import type { StoredListing } from '../../src/domain/listing/listing-view.ts';
import { compareBy } from '../../src/domain/listing/ranking.ts';
import { loadPageData } from '../../src/page-model/page-data.ts';
import { snapshotRecords, tempDir, writeExport } from '../support/fixtures.ts';

const BASE = 'http://catalog.test';

describe('page rows', () => {
  const dir = tempDir('catalog-page-rows-');
  let runtime: string;
  let lines: string[];
  let listings: StoredListing[];

  beforeAll(async () => {
    const result = await runBuild({
      dataDir: join(dir, 'data'),
      exportPath: writeExport(join(dir, 'export'), snapshotRecords()),
      baseUrl: BASE,
      quiet: true,
      stages: [INDEX_STAGE],
    });
    runtime = join(result.buildDir, 'runtime');
    lines = Array.from(fileLines(join(runtime, 'listings.jsonl')), String);
    listings = lines.map((line) => JSON.parse(line) as StoredListing);
  });

  it('say of each listing, in document order, what its line says', () => {
    const rows = [...readPageRows(runtime)];
    expect(rows).toHaveLength(lines.length);
    // The snapshot has what the rows carry apart: copy groups, archived listings, stored files.
    expect(rows.some((row) => row.copy)).toBe(true);
    expect(rows.some((row) => row.archived)).toBe(true);
    expect(rows.some((row) => row.files)).toBe(true);
    rows.forEach((row, doc) => {
      const listing = listings[doc]!;
      const inCopyGroup = listing.copyOf !== undefined || listing.copies !== undefined;
      expect(row).toEqual({
        hash: hash('sha256', lines[doc]!, 'base64url'),
        id: listing.id,
        slug: listing.slug,
        type: listing.type,
        repo: listing.repo,
        installs: listing.installs,
        stars: listing.stars,
        trending: listing.trending,
        searchTrend: listing.searchTrend,
        metrics: { installs: listing.metrics.installs, stars: listing.metrics.stars, history: listing.metrics.history },
        files: listing.files.length > 0,
        categories: listing.categories,
        archived: listing.archived,
        copy: inCopyGroup
          ? { name: listing.name, description: listing.description, files: listing.files, copyOf: listing.copyOf, copyKind: listing.copyKind }
          : undefined,
      });
    });
  });

  it('give the renderers the top lists, ranks and copy groups of every line parsed', () => {
    const data = loadPageData(runtime, BASE);
    const manifest = readRuntimeManifest(runtime);
    const top = new TopListsCollector<StoredListing>(manifest.categories, { item: (listing) => listing, categoryTop: true });
    for (const listing of listings) top.offer(listing);
    const lists = top.finish();
    const slugs = (list: ReadonlyArray<{ slug: string }> | undefined) => list?.map((listing) => listing.slug);
    for (const type of LISTING_TYPES) {
      expect(slugs(data.topByType[type])).toEqual(slugs(lists.byType[type]));
      for (const category of data.categoriesByType[type]) {
        const key = categoryKey(type, category.name);
        expect(slugs(category.top)).toEqual(slugs(lists.categoryTop.get(key)));
        expect(slugs(category.shortlist)).toEqual(slugs(lists.shortlists.get(key)));
      }
    }
    // Every page of a one-share build, each listing whole, with its place by installs and by stars within its type.
    expect(data.renderListings.map((listing) => listing.id)).toEqual(listings.map((listing) => listing.id));
    for (const type of LISTING_TYPES) {
      const ofType = listings.filter((listing) => listing.type === type);
      for (const sort of ['installs', 'stars'] as const) {
        const expected = [...ofType].sort(compareBy(sort)).map((listing, i) => [listing.id, i + 1, ofType.length]);
        const byId = new Map(data.renderListings.map((listing) => [listing.id, listing]));
        expect(expected.map(([id]) => [id, byId.get(id as string)!.rank[sort], byId.get(id as string)!.rank.of])).toEqual(expected);
      }
    }
    const rendered = new Map(data.renderListings.map((listing) => [listing.id, listing]));
    listings.forEach((listing, doc) => {
      const page = rendered.get(listing.id)!;
      expect(page.doc).toBe(doc);
      expect([...page.history]).toEqual(listing.installsHistory);
      if (listing.copyOf !== undefined || listing.copies !== undefined)
        expect(data.byId.get(listing.id)).toMatchObject({ slug: listing.slug, doc, copyOf: listing.copyOf });
      else expect(data.byId.has(listing.id)).toBe(false);
    });
  });

  it('are refused when they do not match the listings', () => {
    const rows = Array.from(fileLines(join(runtime, RUNTIME_PAGE_ROWS_FILE)), String);
    writeFileSync(join(runtime, RUNTIME_PAGE_ROWS_FILE), [rows[1], rows[0], ...rows.slice(2)].join('\n') + '\n');
    expect(() => loadPageData(runtime, BASE)).toThrow(/page-rows\.jsonl and listings\.jsonl differ at line 1/);
    writeFileSync(join(runtime, RUNTIME_PAGE_ROWS_FILE), rows.slice(1).join('\n') + '\n');
    expect(() => loadPageData(runtime, BASE)).toThrow(/page-rows\.jsonl has \d+ listings, the manifest says \d+/);
  });
});
