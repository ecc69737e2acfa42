// Per-owner figures, computed the same way for GET /api/v1/owners/{owner}/stats (the shim, over the snapshot's
// columns) and the owner pages (the site build, over the page listings): listings per type, summed real installs,
// real stars summed over distinct repositories (several listings of one repo share its stars; the largest figure
// counts once), how many listings each sum covers, and the owner's rank among all owners of each type by that
// type's ranking metric. A synthetic figure is never summed (CONTRACT.md, Sorting).
import { LISTING_TYPES, RANKING_METRIC, type ListingType } from './listing-types.ts';
import { byValueThenId } from './ranking.ts';

export interface TypeFigures {
  count: number;
  installs: number;
  stars: number;
  /** Listings whose installs are real: the ones `installs` sums. */
  realInstalls: number;
  /** Listings whose stars are real. */
  realStars: number;
}

export interface OwnerRow {
  /** owner/repo */
  repo: string;
  type: ListingType;
  installs: number;
  stars: number;
  installsReal: boolean;
  starsReal: boolean;
}

export interface OwnerTable {
  /** Lower-cased owner → its name as written and its figures per type. */
  owners: Map<string, { name: string; byType: Partial<Record<ListingType, TypeFigures>> }>;
  /** Per type: lower-cased owner → rank among the type's owners by its ranking metric (1 = first; ties by name). */
  ranks: Record<ListingType, Map<string, number>>;
  ownersPerType: Record<ListingType, number>;
}

/**
 * Owners with at least this many listings get a page (/owners/{owner}/); a page of one listing would repeat its
 * listing page. Every owner has GET /api/v1/owners/{owner}/stats. Pages for every owner took the site stage over
 * its budget at 100k listings (bench/records/2026-11-23-owner-pages.md).
 */
export const OWNER_PAGE_MIN_LISTINGS = 2;

/**
 * The listings an owner page shows of each type, by the type's ranking metric; the rest are behind a link to /browse
 * filtered by owner and type. Bounds what a change of one listing re-renders: a page that listed every listing of
 * an owner of thousands was rendered whole for each (docs/decisions/019-owner-page-top-listings.md).
 */
export const OWNER_PAGE_LISTINGS_PER_TYPE = 50;

/** The owner of a listing: the first part of its repo, lower-cased for lookups. */
export function ownerKey(repo: string): string {
  const slash = repo.indexOf('/');
  return (slash < 0 ? repo : repo.slice(0, slash)).toLowerCase();
}

export function ownerTable(rows: Iterable<OwnerRow>): OwnerTable {
  const owners: OwnerTable['owners'] = new Map();
  const repoStars = new Map<string, { figures: TypeFigures; stars: number }>();
  for (const row of rows) {
    const slash = row.repo.indexOf('/');
    const name = slash < 0 ? row.repo : row.repo.slice(0, slash);
    const key = name.toLowerCase();
    let owner = owners.get(key);
    if (!owner) owners.set(key, (owner = { name, byType: {} }));
    const figures = (owner.byType[row.type] ??= { count: 0, installs: 0, stars: 0, realInstalls: 0, realStars: 0 });
    figures.count++;
    if (row.installsReal) {
      figures.installs += row.installs;
      figures.realInstalls++;
    }
    if (!row.starsReal) continue;
    figures.realStars++;
    const repoKey = `${row.type}:${row.repo.toLowerCase()}`;
    const seen = repoStars.get(repoKey);
    if (!seen) repoStars.set(repoKey, { figures, stars: row.stars });
    else if (row.stars > seen.stars) seen.stars = row.stars;
  }
  for (const { figures, stars } of repoStars.values()) figures.stars += stars;
  const ranks = {} as OwnerTable['ranks'];
  const ownersPerType = {} as OwnerTable['ownersPerType'];
  for (const type of LISTING_TYPES) {
    const metric = RANKING_METRIC[type];
    const ranked = [...owners]
      .filter(([, o]) => o.byType[type])
      .sort(
        byValueThenId(
          ([, owner]) => owner.byType[type]![metric],
          ([key]) => key,
        ),
      );
    ranks[type] = new Map(ranked.map(([key], i) => [key, i + 1]));
    ownersPerType[type] = ranked.length;
  }
  return { owners, ranks, ownersPerType };
}

/** The figures of one owner as the stats endpoint and the owner page give them; undefined for an unknown owner. */
export function ownerStats(table: OwnerTable, owner: string) {
  const key = owner.toLowerCase();
  const found = table.owners.get(key);
  if (!found) return undefined;
  const byType: Partial<Record<ListingType, TypeFigures & { rankedBy: string; rank: number; owners: number }>> = {};
  let total = 0;
  let installs = 0;
  let stars = 0;
  let realInstalls = 0;
  for (const type of LISTING_TYPES) {
    const figures = found.byType[type];
    if (!figures) continue;
    total += figures.count;
    installs += figures.installs;
    stars += figures.stars;
    realInstalls += figures.realInstalls;
    byType[type] = { ...figures, rankedBy: RANKING_METRIC[type], rank: table.ranks[type].get(key)!, owners: table.ownersPerType[type] };
  }
  return { owner: found.name, total, installs, realInstalls, stars, byType };
}
