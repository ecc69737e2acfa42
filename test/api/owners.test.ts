// Guarantees GET /api/v1/owners/{owner}/stats agrees with the listing API (counts, summed installs, stars over distinct
// repositories, a rank per type consistent across owners), and that /badges/{slug}.svg is a well-formed SVG showing
// the listing's ranking figure, grey when that figure is synthetic.
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startInProcess, TEST_BASE_URL, type TestServer } from '../support/server.ts';

interface Listing {
  type: string;
  repo: string;
  installs: number;
  stars: number;
  slug: string;
  metrics: { installs: string; stars: string };
}
interface OwnerStats {
  owner: string;
  total: number;
  installs: number;
  stars: number;
  byType: Record<string, { count: number; installs: number; stars: number; rank: number; owners: number; rankedBy: string }>;
}

let server: TestServer;
beforeAll(async () => {
  server = await startInProcess();
});
afterAll(() => server.close());

async function listingsOf(owner: string): Promise<Listing[]> {
  const found: Listing[] = [];
  let next: string | null = `/api/v1/listings?owner=${owner}&limit=2000`;
  while (next) {
    const page: { items: Listing[]; next: string | null } = await json(await server.fetch(next));
    found.push(...page.items);
    next = page.next ? page.next.replace(TEST_BASE_URL, '') : null;
  }
  return found.filter((l) => l.repo.split('/')[0]!.toLowerCase() === owner.toLowerCase());
}

describe('GET /api/v1/owners/{owner}/stats', () => {
  it.each(['vercel-labs', 'anthropics'])('%s: counts equal those of its listings, sums those of their real figures', async (owner) => {
    const res = await server.fetch(`/api/v1/owners/${owner}/stats`);
    expect(res.status).toBe(200);
    const stats = await json<OwnerStats>(res);
    const listings = await listingsOf(owner);
    expect(stats.total).toBe(listings.length);
    expect(stats.installs).toBe(listings.filter((l) => l.metrics.installs === 'real').reduce((sum, l) => sum + l.installs, 0));
    for (const [type, figures] of Object.entries(stats.byType)) {
      const ofType = listings.filter((l) => l.type === type);
      expect(figures.count, type).toBe(ofType.length);
      const repos = new Map<string, number>();
      for (const l of ofType.filter((x) => x.metrics.stars === 'real'))
        repos.set(l.repo.toLowerCase(), Math.max(repos.get(l.repo.toLowerCase()) ?? 0, l.stars));
      expect(figures.stars, type).toBe([...repos.values()].reduce((a, b) => a + b, 0));
      expect(figures.rank).toBeGreaterThanOrEqual(1);
      expect(figures.rank).toBeLessThanOrEqual(figures.owners);
    }
  });

  it('ranks are consistent: an owner with a larger sum of the ranking metric ranks higher', async () => {
    const a = await json<OwnerStats>(await server.fetch('/api/v1/owners/vercel-labs/stats'));
    const b = await json<OwnerStats>(await server.fetch('/api/v1/owners/anthropics/stats'));
    const x = a.byType.skill!;
    const y = b.byType.skill!;
    expect(Math.sign(y.rank - x.rank)).toBe(Math.sign(x.installs - y.installs) || Math.sign(y.rank - x.rank));
  });

  it('is case-insensitive; an unknown owner is a 404 in the documented shape', async () => {
    const lower = await json<OwnerStats>(await server.fetch('/api/v1/owners/vercel-labs/stats'));
    expect(await json<OwnerStats>(await server.fetch('/v1/owners/VERCEL-LABS/stats'))).toEqual(lower);
    const missing = await server.fetch('/api/v1/owners/no-such-owner-anywhere/stats');
    expect(missing.status).toBe(404);
    expect(await json(missing)).toMatchObject({ code: 'not_found' });
  });
});

describe('GET /badges/{slug}.svg', () => {
  it('is an SVG with the listing figure, green for a real figure and grey for a synthetic one', async () => {
    const parser = new XMLParser({ ignoreAttributes: false });
    const real = await json<Listing>(await server.fetch('/api/v1/listings/find-skills'));
    const res = await server.fetch('/badges/find-skills.svg');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
    const svg = await res.text();
    const doc = parser.parse(svg) as { svg: { title: string; rect: Array<{ '@_fill': string }> } };
    expect(doc.svg.title).toMatch(/^skill installs: \d+(\.\d)?[kM]?$/);
    expect(real.metrics.installs).toBe('real');
    expect(doc.svg.rect[1]!['@_fill']).toBe('#1f883d');
    const synthetic = await json<{ items: Listing[] }>(await server.fetch('/api/v1/listings?type=mcp&limit=50'));
    const mcp = synthetic.items.find((l) => l.metrics.stars !== 'real');
    if (mcp) {
      const grey = parser.parse(await (await server.fetch(`/badges/${mcp.slug}.svg`)).text()) as typeof doc;
      expect(grey.svg.rect[1]!['@_fill']).toBe('#8c959f');
      expect(grey.svg.title).toContain('synthetic');
    }
    expect((await server.fetch('/badges/no-such-listing.svg')).status).toBe(404);
  });
});
