// Guarantees the streaming catalog view (src/catalog-view/): in one bounded pass it yields exactly the top lists
// a full sort would (each type by its metric and each comparison shortlist with at most two listings of one
// repository and no archived one, each category, the head of the default order), so the pages and the discovery
// files that both read it agree.
import { describe, expect, it } from 'vitest';
import { categoryKey, PER_REPO_IN_TOP_LISTS, TopList, TopListsCollector, TOP_SIZES, type ViewListing } from '../../src/catalog-view/catalog-view.ts';
import { LISTING_TYPES, RANKING_METRIC, type ListingType } from '../../src/domain/listing/listing-types.ts';
import { compareBy } from '../../src/domain/listing/ranking.ts';
import { hasShortlist, SHORTLIST, shortlistSort } from '../../src/domain/listing/shortlists.ts';

/** A deterministic catalog with many ties (values from a small range), in the default order. */
function catalog(count: number): Array<ViewListing & { id: string; type: ListingType; categories: string[] }> {
  let seed = 7;
  const next = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  const listings = Array.from({ length: count }, (_, i) => ({
    id: `${LISTING_TYPES[i % LISTING_TYPES.length]}:o/r#l${next(10_000)}-${i}`,
    type: LISTING_TYPES[i % LISTING_TYPES.length]!,
    // Few repositories, so many listings share one and the per-repository cap decides.
    repo: `o/r${next(12)}`,
    // Some archived or moved: marked, and left out of the type lists and the comparisons.
    archived: next(10) === 0 ? 'moved to o/r-archived' : undefined,
    categories: [...new Set([`c${next(6)}`, `c${next(6)}`])],
    installs: next(50),
    stars: next(50),
    trending: next(5),
    searchTrend: 0,
    // Every mix of real and synthetic figures, so the lists hold each tier of ranking.ts.
    metrics: {
      installs: next(3) === 0 ? 'synthetic' : 'real',
      stars: next(2) === 0 ? 'synthetic' : 'real',
      history: next(2) === 0 ? 'synthetic' : 'interpolated',
    } as const,
  }));
  return listings.sort(compareBy('installs'));
}

describe('catalog view', () => {
  const listings = catalog(3000);
  const categories = LISTING_TYPES.flatMap((type) =>
    [...new Set(listings.filter((l) => l.type === type).flatMap((l) => l.categories))].map((name) => ({
      type,
      name,
      count: listings.filter((l) => l.type === type && l.categories.includes(name)).length,
    })),
  );
  categories.push({ type: 'workflow', name: 'tiny', count: SHORTLIST.minListings - 1 });
  const collector = new TopListsCollector(categories, { item: (listing: (typeof listings)[number]) => ({ ...listing }), categoryTop: true });
  for (const listing of listings) collector.offer(listing);
  const view = collector.finish();
  const ids = (list: Array<{ id: string }>) => list.map((l) => l.id);
  const sorted = (list: typeof listings, sort: Parameters<typeof compareBy>[0], size: number) => ids([...list].sort(compareBy(sort)).slice(0, size));
  /** The full sort, each repository's first PER_REPO_IN_TOP_LISTS only, cut. */
  const capped = (list: typeof listings, sort: Parameters<typeof compareBy>[0], size: number) => {
    const seen = new Map<string, number>();
    const kept = [...list]
      .filter((l) => !l.archived)
      .sort(compareBy(sort))
      .filter((l) => {
        const n = seen.get(l.repo) ?? 0;
        seen.set(l.repo, n + 1);
        return n < PER_REPO_IN_TOP_LISTS;
      });
    return ids(kept.slice(0, size));
  };

  it('the overall list is the head of the default order', () => {
    expect(ids(view.overall)).toEqual(ids(listings.slice(0, TOP_SIZES.overall)));
  });

  it.each(LISTING_TYPES)('the %s list is the full sort by its metric, two per repository, cut', (type) => {
    expect(ids(view.byType[type])).toEqual(
      capped(
        listings.filter((l) => l.type === type),
        RANKING_METRIC[type],
        TOP_SIZES.perType,
      ),
    );
    expect(ids(view.byType[type])).not.toEqual(
      sorted(
        listings.filter((l) => l.type === type),
        RANKING_METRIC[type],
        TOP_SIZES.perType,
      ),
    );
  });

  it('each category list is the full sort, cut, and each shortlist two per repository; categories too small have no shortlist', () => {
    for (const category of categories) {
      const members = listings.filter((l) => l.type === category.type && l.categories.includes(category.name));
      const key = categoryKey(category.type, category.name);
      expect(ids(view.categoryTop.get(key)!)).toEqual(sorted(members, RANKING_METRIC[category.type], TOP_SIZES.category));
      expect(view.shortlists.get(key) && ids(view.shortlists.get(key)!)).toEqual(
        hasShortlist(category) ? capped(members, shortlistSort(category.type), SHORTLIST.size) : undefined,
      );
    }
  });

  it('makes the kept item once per listing, only for listings some list keeps', () => {
    let made = 0;
    const counting = new TopListsCollector(categories, { item: (listing: (typeof listings)[number]) => (made++, listing) });
    for (const listing of listings) counting.offer(listing);
    const kept = new Set([
      ...ids(counting.finish().overall),
      ...LISTING_TYPES.flatMap((type) => ids(counting.finish().byType[type])),
      ...[...counting.finish().shortlists.values()].flatMap(ids),
    ]);
    expect(made).toBeGreaterThanOrEqual(kept.size);
    expect(made).toBeLessThan(listings.length);
  });

  it('a top list keeps the best items in order whatever order they come in', () => {
    const list = new TopList<number>(3, (a, b) => b - a);
    for (const n of [5, 1, 9, 7, 3, 9]) list.offer(n);
    expect(list.items).toEqual([9, 9, 7]);
    expect(list.accepts(7)).toBe(false);
    expect(list.accepts(8)).toBe(true);
  });
});
