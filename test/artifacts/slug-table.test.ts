// The build's slug table: every slug found through collisions and wrap-around, absent slugs not found, a repeated
// slug answering its last document.
import { describe, expect, it } from 'vitest';
import { buildSlugTable, findSlug, slugHash } from '../../src/artifacts/slug-table.ts';

describe('slug table', () => {
  it('finds every slug of a table crowded with collisions, and no other', () => {
    const slugs = Array.from({ length: 5000 }, (_, i) => `listing-${i}`);
    const table = buildSlugTable(slugs);
    expect(table.length).toBe(16384);
    const mask = table.length - 1;
    // The set has slugs sharing a home slot, so probing past a neighbour is exercised.
    const homes = new Set(slugs.map((slug) => slugHash(slug) & mask));
    expect(homes.size).toBeLessThan(slugs.length);
    slugs.forEach((slug, doc) => expect(findSlug(table, slug, (d) => slugs[d] === slug)).toBe(doc));
    for (const absent of ['listing-5000', 'listing', '', 'Listing-1']) expect(findSlug(table, absent, (d) => slugs[d] === absent)).toBeUndefined();
  });

  it('wraps around the end of the table', () => {
    // Two slugs whose home is the last of 4 slots: the second is stored in, and found at, slot 0.
    const slugs = Array.from({ length: 200 }, (_, i) => `s${i}`)
      .filter((slug) => (slugHash(slug) & 3) === 3)
      .slice(0, 2);
    expect(slugs).toHaveLength(2);
    const table = buildSlugTable(slugs);
    expect([...table]).toEqual([2, 0, 0, 1]);
    slugs.forEach((slug, doc) => expect(findSlug(table, slug, (d) => slugs[d] === slug)).toBe(doc));
  });

  it('answers a repeated slug with its last document, as a Map would', () => {
    const slugs = ['x', 'y', 'x'];
    expect(findSlug(buildSlugTable(slugs), 'x', (d) => slugs[d] === 'x')).toBe(2);
    expect(findSlug(buildSlugTable([]), 'x', () => true)).toBeUndefined();
  });
});
