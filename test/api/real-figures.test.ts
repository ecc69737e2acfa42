// Guarantees that no synthetic figure decides a place or enters a total (CONTRACT.md, Sorting): the first 200 of
// every list (each sort, overall and per type, and each type's own top list) are ordered by real figures, then by
// id; the stats and owner totals sum real figures only and report estimates apart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LISTING_TYPES, RANKING_METRIC } from '../../src/domain/listing/listing-types.ts';
import { SORTS } from '../../src/domain/listing/ranking.ts';
import type { CatalogStats, Listing } from '../../src/domain/schemas.ts';
import { json, startInProcess, type TestServer } from '../support/server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startInProcess();
});
afterAll(() => server.close());

const WALK = 200;
const get = async <T>(path: string) => (await json(await server.fetch(path))) as T;
const firstOf = async (query: string) => (await get<{ items: Listing[] }>(`/api/v1/listings?${query}&limit=${WALK}`)).items;

/**
 * The places of a list, adjacent pair by adjacent pair, as the contract words them: under `installs` the listings
 * with real installs come first, by installs; then those with real stars, by stars; then the rest, by id. `stars`
 * the other way round; `trending` measured or interpolated histories, then modelled ones by id. Returns each pair
 * whose order a synthetic figure (or nothing) decided.
 */
function syntheticPlaces(sort: string, items: Listing[]): string[] {
  const real = (l: Listing, figure: 'installs' | 'stars') => l.metrics[figure] === 'real';
  const group = (l: Listing): { tier: number; value: number } => {
    if (sort === 'installs')
      return real(l, 'installs') ? { tier: 0, value: l.installs } : real(l, 'stars') ? { tier: 1, value: l.stars } : { tier: 2, value: 0 };
    if (sort === 'stars') return real(l, 'stars') ? { tier: 0, value: l.stars } : real(l, 'installs') ? { tier: 1, value: l.installs } : { tier: 2, value: 0 };
    if (sort === 'trending') return l.metrics.history !== 'synthetic' ? { tier: 0, value: l.trending } : { tier: 1, value: 0 };
    return { tier: 0, value: l.searchTrend };
  };
  const wrong: string[] = [];
  for (let i = 1; i < items.length; i++) {
    const [a, b] = [items[i - 1]!, items[i]!];
    const [ga, gb] = [group(a), group(b)];
    const ok = ga.tier < gb.tier || (ga.tier === gb.tier && (ga.value > gb.value || (ga.value === gb.value && a.id < b.id)));
    if (!ok) wrong.push(`${sort} #${i}: ${a.id} (${JSON.stringify(a.metrics)}) before ${b.id} (${JSON.stringify(b.metrics)})`);
  }
  return wrong;
}

describe('the first 200 of every list', () => {
  const lists = SORTS.flatMap((sort) => [`sort=${sort}`, ...LISTING_TYPES.map((type) => `sort=${sort}&type=${type}`)]);

  it.each(lists)('%s: 0 places decided by a synthetic figure', async (query) => {
    const items = await firstOf(query);
    expect(items.length).toBeGreaterThan(0);
    expect(syntheticPlaces(/sort=(\w+)/.exec(query)![1]!, items)).toEqual([]);
  });

  it('the default order is the installs sort: real installs first, never a synthetic count', async () => {
    const [implicit, explicit] = await Promise.all([firstOf('type=skill'), firstOf('sort=installs&type=skill')]);
    expect(implicit.map((l) => l.id)).toEqual(explicit.map((l) => l.id));
    const top = await firstOf('sort=installs');
    expect(top.every((l) => l.metrics.installs === 'real')).toBe(true);
  });

  it.each(LISTING_TYPES)("the %s top list ranks by the type's real figure, and plugins and workflows by real repository stars", async (type) => {
    const items = await firstOf(`type=${type}&sort=${RANKING_METRIC[type]}`);
    expect(syntheticPlaces(RANKING_METRIC[type], items)).toEqual([]);
    if (type === 'plugin' || type === 'workflow') expect(RANKING_METRIC[type]).toBe('stars');
    expect(items[0]!.metrics[RANKING_METRIC[type]]).toBe('real');
  });
});

describe('totals', () => {
  it('catalog stats sum real installs and say how many listings they cover; synthetic installs stand apart', async () => {
    const stats = await get<CatalogStats>('/api/v1/catalog/stats');
    let installs = 0;
    let covered = 0;
    let estimated = 0;
    for (let offset = 0; offset < stats.total; offset += 2000) {
      for (const l of (await get<{ items: Listing[] }>(`/api/v1/listings?limit=2000&offset=${offset}`)).items) {
        if (l.metrics.installs === 'real') {
          installs += l.installs;
          covered++;
        } else estimated += l.installs;
      }
    }
    expect(stats.installs).toBe(installs);
    expect(Object.values(stats.realInstalls).reduce((a, b) => a + b, 0)).toBe(covered);
    expect(stats.estimated).toEqual({ installs: estimated, listings: stats.total - covered });
  });

  it("an owner's installs are its real installs only", async () => {
    const owner = 'vercel-labs';
    const stats = await get<{ installs: number; realInstalls: number }>(`/api/v1/owners/${owner}/stats`);
    const items = (await get<{ items: Listing[] }>(`/api/v1/listings?owner=${owner}&limit=2000`)).items.filter(
      (l) => l.repo.split('/')[0]!.toLowerCase() === owner,
    );
    const real = items.filter((l) => l.metrics.installs === 'real');
    expect(stats.installs).toBe(real.reduce((sum, l) => sum + l.installs, 0));
    expect(stats.realInstalls).toBe(real.length);
  });
});
