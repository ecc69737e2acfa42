// /feeds/listings.json: a schema.org DataFeed of the current top listings (the first 100 in the default order, then
// the top 20 of each type by its ranking metric, each listing once). JSON-LD is the default representation
// (application/ld+json): the feed is a schema.org document first. A client that asks for application/json and not
// for JSON-LD gets the same document as application/json (JSON-LD is JSON), the rule /ask follows too.
// Figures appear as interactionStatistic only when they are real; there are no ratings, so no aggregateRating.
import { BRAND, TAGLINE } from '../../../src/domain/brand.ts';
import { categoryLabel } from '../../../src/domain/listing/categories.ts';
import { LISTING_TYPES, TYPE_LABELS } from '../../../src/domain/listing/listing-types.ts';
import { SITE_PATHS } from '../../../src/domain/site-paths.ts';
import type { StageContext } from '../stage.ts';
import type { GeneratedFile } from '../../site-writer.ts';
import { catalogHighlights, type Highlights, type ListingSummary } from './discovery-data.ts';
import { TOP_SIZES } from '../../../src/catalog-view/catalog-view.ts';
import { MEDIA_TYPES, operationPath, requireRuntime } from './site-links.ts';

type Json = Record<string, unknown>;

/** The feed's listings: overall head first, then each type's top list; each listing once. */
export function feedListings(highlights: Highlights): ListingSummary[] {
  const seen = new Set<string>();
  const out: ListingSummary[] = [];
  for (const listing of [...highlights.overall, ...LISTING_TYPES.flatMap((type) => highlights.byType[type].slice(0, TOP_SIZES.perType))]) {
    if (seen.has(listing.id)) continue;
    seen.add(listing.id);
    out.push(listing);
  }
  return out;
}

function statistics(listing: ListingSummary): Json[] {
  const counters: Json[] = [];
  if (listing.metrics.installs === 'real') {
    counters.push({
      '@type': 'InteractionCounter',
      interactionType: 'https://schema.org/InstallAction',
      userInteractionCount: listing.installs,
      name: 'installs',
    });
  }
  if (listing.metrics.stars === 'real') {
    counters.push({
      '@type': 'InteractionCounter',
      interactionType: 'https://schema.org/LikeAction',
      userInteractionCount: listing.stars,
      name: 'GitHub stars',
    });
  }
  return counters;
}

export function softwareApplication(baseUrl: string, listing: ListingSummary): Json {
  const url = baseUrl + SITE_PATHS.listing(listing.slug);
  const item: Json = {
    '@type': 'SoftwareApplication',
    '@id': url,
    identifier: listing.id,
    name: listing.name,
    url,
    description: listing.description,
    applicationCategory: 'DeveloperApplication',
    applicationSubCategory: `${TYPE_LABELS[listing.type].singular}: ${categoryLabel(listing.category)}`,
    keywords: [listing.type, ...listing.categories, ...listing.tags].join(', '),
    author: { name: listing.author },
    sameAs: listing.homepage ? [listing.repoUrl, listing.homepage] : [listing.repoUrl],
    dateModified: listing.updatedAt,
  };
  const counters = statistics(listing);
  if (counters.length > 0) item.interactionStatistic = counters;
  return item;
}

export function dataFeed(ctx: Pick<StageContext, 'baseUrl' | 'runtime'>, highlights: Highlights): Json {
  const runtime = requireRuntime(ctx);
  const feedUrl = ctx.baseUrl + operationPath('getDataFeed');
  return {
    '@context': 'https://schema.org',
    '@type': 'DataFeed',
    '@id': feedUrl,
    name: `${BRAND}: top listings`,
    description:
      `${TAGLINE} The first ${TOP_SIZES.overall} listings by installs, then the top ${TOP_SIZES.perType} of each type by its ranking ` +
      'metric (installs for skills, plugins and workflows; repository stars for MCP servers and marketplaces). interactionStatistic carries only real figures.',
    url: feedUrl,
    dateModified: runtime.lastUpdated,
    isAccessibleForFree: true,
    publisher: { '@type': 'Organization', name: BRAND, url: ctx.baseUrl + SITE_PATHS.home },
    dataFeedElement: feedListings(highlights).map((listing) => ({
      '@type': 'DataFeedItem',
      dateModified: listing.updatedAt,
      item: softwareApplication(ctx.baseUrl, listing),
    })),
  };
}

export async function feedFiles(ctx: StageContext): Promise<GeneratedFile[]> {
  return [
    {
      path: operationPath('getDataFeed'),
      contentType: MEDIA_TYPES.jsonLd,
      alternates: [{ contentType: MEDIA_TYPES.json }],
      body: `${JSON.stringify(dataFeed(ctx, await catalogHighlights(ctx)), null, 1)}\n`,
    },
  ];
}
