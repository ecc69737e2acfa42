// The runtime store answers listing bytes from its resident prefix (the most-installed listings) or from disk by
// offset; either way the bytes are exactly the stored line, including a run of documents that crosses the edge, while
// the prefix is still being read in the background and after, whether read as views or copied into an answer; a
// catalog the size of the embedded snapshot is held whole; and a store closed mid-read closes cleanly.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { sharedBuildDir } from '../support/shared-build.ts';
import { CatalogStore } from '../../src/artifacts/runtime-store.ts';

let runtime: string;
let lines: string[];
let fileBytes: number;

beforeAll(async () => {
  runtime = join(await sharedBuildDir(), 'runtime');
  const file = readFileSync(join(runtime, 'listings.jsonl'));
  fileBytes = file.length;
  lines = file.toString('utf8').split('\n');
});

/** Each document's bytes as copyRaw writes them side by side into one buffer, less `trim` bytes each. */
function copied(store: CatalogStore, docs: number[], trim: number): string[] {
  const sizes = docs.map((doc) => store.rawSize(doc) - trim);
  const target = Buffer.alloc(sizes.reduce((a, b) => a + b, 0));
  let at = 0;
  const written = docs.map((doc) => {
    const size = store.copyRaw(doc, target, at, trim);
    at += size;
    return size;
  });
  expect(written).toEqual(sizes);
  let from = 0;
  return sizes.map((size) => target.toString('utf8', from, (from += size)));
}

/** The first document not wholly within `bytes` of the file. */
function edgeOf(store: CatalogStore, bytes: number): number {
  const { offsets } = store.columns;
  let edge = 0;
  while (edge < store.count && offsets[edge + 1]! <= bytes) edge++;
  return edge;
}

describe('listing bytes', () => {
  it('are the stored lines on both sides of the resident prefix and across it, while it loads and after', async () => {
    // Two thirds resident, a sixth of it read at start: the rest of the catalog is read from disk, as for a large one.
    const residentBytes = Math.floor((fileBytes * 2) / 3);
    const store = new CatalogStore(runtime, { residentBytes, firstReadBytes: Math.floor(fileBytes / 6) });
    const first = edgeOf(store, Math.floor(fileBytes / 6));
    const edge = edgeOf(store, residentBytes);
    expect(first).toBeGreaterThan(1);
    expect(edge).toBeGreaterThan(first + 1);
    expect(edge).toBeLessThan(store.count - 1);
    const docs = [0, 1, first - 1, first, first + 1, edge - 2, edge - 1, edge, edge + 1, store.count - 1];
    const expected = docs.map((doc) => lines[doc]);
    expect(store.readJson(docs)).toEqual(expected);
    expect(copied(store, docs, 0)).toEqual(expected);
    expect(copied(store, docs, 1)).toEqual(expected.map((line) => line!.slice(0, -1)));
    await store.whenResident();
    expect(store.readJson(docs)).toEqual(expected);
    expect(copied(store, docs, 0)).toEqual(expected);
    expect(copied(store, docs, 1)).toEqual(expected.map((line) => line!.slice(0, -1)));
    expect(store.readJson([3, edge - 1, 7, first])).toEqual([lines[3], lines[edge - 1], lines[7], lines[first]]);
    store.close();
  });

  it('holds every listing of a catalog the size of the embedded snapshot in memory by default', async () => {
    // The runtime file is larger than the 24 MiB prefix this bound replaced: with it, a quarter of the listings
    // would be read from disk.
    expect(fileBytes).toBeGreaterThan(24 * 1024 * 1024);
    const store = new CatalogStore(runtime);
    try {
      await store.whenResident();
      expect(store.residentListings).toBe(store.count);
      const small = new CatalogStore(runtime, { residentBytes: Math.floor(fileBytes / 2) });
      try {
        expect(small.residentListings).toBeGreaterThan(0);
        expect(small.residentListings).toBeLessThan(store.count);
      } finally {
        small.close();
      }
    } finally {
      store.close();
    }
  });

  it('closes cleanly while the prefix is still being read', async () => {
    const store = new CatalogStore(runtime, { firstReadBytes: 1 });
    store.close();
    await store.whenResident();
    const again = new CatalogStore(runtime);
    expect(again.readJson([0])).toEqual([lines[0]]);
    again.close();
  });
});

describe('ids, slugs and filter postings', () => {
  it('resolves every listing by its id and by its slug, in either case, and nothing else', () => {
    const store = new CatalogStore(runtime);
    try {
      const ids = lines.filter((line) => line).map((line) => (JSON.parse(line) as { id: string }).id);
      expect(ids).toHaveLength(store.count);
      ids.forEach((id, doc) => {
        const slug = id.slice(id.lastIndexOf('#') + 1);
        expect(store.idOf(doc)).toBe(id);
        expect(store.slugOf(doc)).toBe(slug);
        expect(store.findDoc(slug)).toBe(doc);
        expect(store.findDoc(id)).toBe(doc);
        expect(store.findDoc(slug.toUpperCase())).toBe(doc);
        // The id's type and repo in another case: the slug is found in place, the id compared without case.
        expect(store.findDoc(id.slice(0, id.lastIndexOf('#')).toUpperCase() + id.slice(id.lastIndexOf('#')))).toBe(doc);
        if (slug.length > 1) expect(store.findDoc(slug.slice(0, -1)) === doc).toBe(false);
      });
      const [type, rest] = ids[0]!.split(':') as [string, string];
      expect(store.findDoc(`${type === 'skill' ? 'mcp' : 'skill'}:${rest}`)).toBeUndefined();
      for (const absent of ['', '#', 'no-such-listing-anywhere', `${ids[0]}-x`, `${ids[0]}\u00e9`, 'ünknown-listing'])
        expect(store.findDoc(absent)).toBeUndefined();
    } finally {
      store.close();
    }
  });

  it('gives each category and owner its listings, and an empty list for a key it does not know', () => {
    const store = new CatalogStore(runtime);
    try {
      const expected = new Map<string, number[]>();
      lines.forEach((line, doc) => {
        if (!line) return;
        const listing = JSON.parse(line) as { categories: string[]; repo: string; author: string };
        const keys = new Set([
          ...listing.categories.map((c) => `c:${c}`),
          `o:${listing.repo.split('/')[0]!.toLowerCase()}`,
          `o:${listing.author.toLowerCase()}`,
        ]);
        for (const key of keys) expected.set(key, [...(expected.get(key) ?? []), doc]);
      });
      expect(expected.size).toBeGreaterThan(10);
      for (const [key, docs] of expected) expect([...store.posting(key)], key).toEqual(docs);
      expect(store.posting('o:no-such-owner-anywhere')).toHaveLength(0);
      expect(store.posting('')).toHaveLength(0);
      for (const absent of ['c:', 'o:ünknown-owner', 'o:\u{1F600}', 'z:last']) expect(store.posting(absent), absent).toHaveLength(0);
    } finally {
      store.close();
    }
  });
});
