// The runtime store answers listing bytes from its resident prefix (the most-installed listings) or from disk by
// offset; either way the bytes are exactly the stored line, including a run of documents that crosses the edge.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CatalogStore } from '../../src/artifacts/runtime-store.ts';

let store: CatalogStore;
let lines: string[];
/** A third of the embedded snapshot's listing bytes: the rest is read from disk, as for a large catalog. */
let residentBytes: number;

beforeAll(() => {
  const runtime = join(inject('catalogBuildDir'), 'runtime');
  const file = readFileSync(join(runtime, 'listings.jsonl'));
  residentBytes = Math.floor(file.length / 3);
  store = new CatalogStore(runtime, residentBytes);
  lines = file.toString('utf8').split('\n');
});
afterAll(() => store.close());

describe('listing bytes', () => {
  it('are the stored lines on both sides of the resident prefix and across it', () => {
    const { offsets } = store.columns;
    let edge = 0;
    while (edge < store.count && offsets[edge + 1]! <= residentBytes) edge++;
    expect(edge).toBeGreaterThan(0);
    expect(edge).toBeLessThan(store.count);
    const docs = [0, 1, edge - 2, edge - 1, edge, edge + 1, store.count - 1];
    expect(store.readJson(docs)).toEqual(docs.map((doc) => lines[doc]));
    expect(store.readJson([3, edge - 1, 7])).toEqual([lines[3], lines[edge - 1], lines[7]]);
  });
});
