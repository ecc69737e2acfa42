// Guarantees the FlexSearch export → import round trip under the shared options, so the shim answers
// exactly what the build indexed without re-indexing at start.
import { describe, expect, it } from 'vitest';
import { createSearchIndexes, fieldTexts, SEARCH_FIELDS } from '../../src/domain/search-index.ts';
import { sampleRecords } from '../support/fixtures.ts';

describe('search index round trip', () => {
  it('an exported index imports into a fresh one with identical answers', async () => {
    const records = sampleRecords(200);
    const built = createSearchIndexes();
    records.forEach((record, doc) => {
      const texts = fieldTexts(record);
      for (const field of SEARCH_FIELDS) if (texts[field]) built[field].add(doc, texts[field]);
    });
    const imported = createSearchIndexes();
    for (const field of SEARCH_FIELDS) {
      const chunks: Array<[string, string]> = [];
      await built[field].export((key: string, data: string) => {
        chunks.push([key, data]);
      });
      expect(chunks.length).toBeGreaterThan(0);
      for (const [key, data] of chunks) imported[field].import(key, data);
    }
    const queries = ['server', 'pdf', 'postg', 'github', 'react', 'database', 'anthropics', 'browser automation'];
    let nonEmpty = 0;
    for (const q of queries) {
      for (const field of SEARCH_FIELDS) {
        const expected = built[field].search(q, { limit: 1000 });
        expect(imported[field].search(q, { limit: 1000 })).toEqual(expected);
        if (expected.length) nonEmpty++;
      }
    }
    expect(nonEmpty).toBeGreaterThan(8);
  });
});
