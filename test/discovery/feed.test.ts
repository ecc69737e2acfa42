// Guarantees /feeds/listings.json is a schema.org DataFeed of the current top listings (the API's first 100 in the
// default order, then each type's top 20 by its ranking metric), served as JSON-LD by default and as JSON to a
// client that asks for JSON, and that it states only real figures as interaction statistics.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOP_SIZES } from '../../src/catalog-view/catalog-view.ts';
import { LISTING_TYPES, RANKING_METRIC } from '../../src/domain/listing/listing-types.ts';
import { json, startInProcess, TEST_BASE_URL, type TestServer } from '../support/server.ts';
import { twoPerRepository } from '../support/top-lists.ts';

interface ApiListing {
  id: string;
  archived?: string;
  repo: string;
  url: string;
  name: string;
  description: string;
  author: string;
  installs: number;
  stars: number;
  updatedAt: string;
  metrics: { installs: 'real' | 'synthetic'; stars: 'real' | 'synthetic' };
}
interface Counter {
  '@type': string;
  interactionType: string;
  userInteractionCount: number;
}
interface FeedItem {
  '@type': string;
  dateModified: string;
  item: {
    '@type': string;
    '@id': string;
    identifier: string;
    name: string;
    url: string;
    description: string;
    applicationCategory: string;
    author: { name: string };
    interactionStatistic?: Counter[];
    aggregateRating?: unknown;
  };
}
interface Feed {
  '@context': string;
  '@type': string;
  url: string;
  dateModified: string;
  dataFeedElement: FeedItem[];
}

let server: TestServer;
let feed: Feed;
beforeAll(async () => {
  server = await startInProcess();
  feed = await json<Feed>(await server.fetch('/feeds/listings.json'));
});
afterAll(() => server.close());

const listings = async (query: string) => (await json<{ items: ApiListing[] }>(await server.fetch(`/api/v1/listings?${query}`))).items;

describe('/feeds/listings.json', () => {
  it('is a schema.org DataFeed in JSON-LD, dated by the snapshot', async () => {
    const meta = await json<{ lastUpdated: string }>(await server.fetch('/api/v1/meta'));
    expect(feed['@context']).toBe('https://schema.org');
    expect(feed['@type']).toBe('DataFeed');
    expect(feed.url).toBe(`${TEST_BASE_URL}/feeds/listings.json`);
    expect(feed.dateModified).toBe(meta.lastUpdated);
    for (const element of feed.dataFeedElement) {
      expect(element['@type']).toBe('DataFeedItem');
      expect(element.item['@type']).toBe('SoftwareApplication');
      expect(element.item['@id']).toBe(element.item.url);
      for (const field of ['name', 'url', 'description', 'applicationCategory'] as const) expect(typeof element.item[field], field).toBe('string');
      expect(typeof element.item.author.name).toBe('string');
      expect(element.item.aggregateRating).toBeUndefined();
    }
  });

  it("holds the API's first 100 listings, then the top 20 of each type (two per repository), each listing once", async () => {
    const ids = feed.dataFeedElement.map((e) => e.item.identifier);
    expect(new Set(ids).size).toBe(ids.length);
    const overall = await listings(`limit=${TOP_SIZES.overall}`);
    expect(ids.slice(0, overall.length)).toEqual(overall.map((l) => l.id));
    for (const type of LISTING_TYPES) {
      const top = twoPerRepository((await listings(`type=${type}&sort=${RANKING_METRIC[type]}&limit=200`)).filter((l) => !l.archived)).slice(
        0,
        TOP_SIZES.perType,
      );
      for (const listing of top) expect(ids, `${type} ${listing.id}`).toContain(listing.id);
    }
    expect(ids.length).toBeLessThanOrEqual(TOP_SIZES.overall + LISTING_TYPES.length * TOP_SIZES.perType);
  });

  it('carries each listing as the API has it, and an interaction statistic only for a real figure', async () => {
    const sample = feed.dataFeedElement.slice(0, 25);
    const batch = await json<{ items: ApiListing[] }>(
      await server.fetch('/api/v1/listings/batch', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ ids: sample.map((e) => e.item.identifier) }),
      }),
    );
    const byId = new Map(batch.items.map((l) => [l.id, l]));
    let stated = 0;
    for (const element of feed.dataFeedElement) {
      const listing = byId.get(element.item.identifier);
      if (listing) {
        expect(element.item).toMatchObject({ name: listing.name, url: listing.url, description: listing.description, author: { name: listing.author } });
        expect(element.dateModified).toBe(listing.updatedAt);
      }
      const counters = element.item.interactionStatistic ?? [];
      const installs = counters.find((c) => c.interactionType === 'https://schema.org/InstallAction');
      const stars = counters.find((c) => c.interactionType === 'https://schema.org/LikeAction');
      if (listing) {
        expect(installs?.userInteractionCount).toBe(listing.metrics.installs === 'real' ? listing.installs : undefined);
        expect(stars?.userInteractionCount).toBe(listing.metrics.stars === 'real' ? listing.stars : undefined);
      }
      stated += counters.length;
    }
    expect(byId.size).toBe(sample.length);
    expect(stated).toBeGreaterThan(0);
  });

  it('is JSON-LD by default and plain JSON to a client that asks for JSON and not JSON-LD', async () => {
    const cases: Array<[string | undefined, string]> = [
      [undefined, 'application/ld+json; charset=utf-8'],
      ['application/ld+json', 'application/ld+json; charset=utf-8'],
      ['application/ld+json, application/json', 'application/ld+json; charset=utf-8'],
      ['application/json', 'application/json; charset=utf-8'],
      ['text/html,application/xhtml+xml,*/*;q=0.8', 'application/ld+json; charset=utf-8'],
    ];
    for (const [accept, type] of cases) {
      const res = await server.fetch('/feeds/listings.json', { headers: accept ? { Accept: accept } : {} });
      expect(res.headers.get('content-type'), accept).toBe(type);
      expect(await json(res)).toEqual(feed);
    }
  });
});
