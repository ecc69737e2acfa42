// Per-owner figures (GET /api/v1/owners/{owner}/stats) and an embeddable SVG badge per listing (GET /badges/{slug}.svg).
// Owner figures come from the snapshot's owner table (server/owners/owner-table.ts), the badge's drawing from
// server/owners/badge.ts.
import { CatalogError } from '../../src/domain/contract/errors.ts';
import { RANKING_METRIC, TYPE_LABELS, type ListingType } from '../../src/domain/listing/listing-types.ts';
import { ownerStats } from '../../src/domain/listing/owner-figures.ts';
import { LIMITS } from '../../src/domain/contract/limits.ts';
import { json, type HandlersFor } from '../http/handler.ts';
import type { Services } from '../services.ts';
import { badgeSvg, compact } from '../owners/badge.ts';
import { OWNER_TABLE } from '../owners/owner-table.ts';

export function ownerHandlers(services: Services): HandlersFor<'getOwnerStats' | 'getListingBadge'> {
  return {
    getOwnerStats: (ctx) => {
      const requested = ctx.params.owner ?? '';
      if (requested.length < 1 || requested.length > LIMITS.owner)
        throw new CatalogError('invalid_parameter', `Parameter 'owner' must be 1 to ${LIMITS.owner} characters.`);
      const stats = ownerStats(services.catalog.current.get(OWNER_TABLE), requested);
      if (!stats)
        throw new CatalogError('not_found', `No listing belongs to the owner '${requested}'.`, {
          resolution: 'Owners are the first part of a listing repo (owner/repo).',
        });
      return json(200, { ...stats, listings: `${services.config.baseUrl}/api/v1/listings?owner=${encodeURIComponent(stats.owner)}` });
    },
    getListingBadge: (ctx) => {
      const snapshot = services.catalog.current;
      const doc = snapshot.store.findDoc(ctx.params.slug ?? '');
      if (doc === undefined) throw new CatalogError('not_found', `No listing has the slug '${ctx.params.slug}'.`);
      const listing = JSON.parse(snapshot.store.readJson([doc])[0]!) as {
        type: ListingType;
        installs: number;
        stars: number;
        metrics: { installs: string; stars: string };
      };
      const metric = RANKING_METRIC[listing.type];
      const svg = badgeSvg(`${TYPE_LABELS[listing.type].singular.toLowerCase()} ${metric}`, compact(listing[metric]), listing.metrics[metric] !== 'real');
      return json(200, svg, { 'Cache-Control': 'public, max-age=3600', 'Content-Security-Policy': "default-src 'none'" }, 'image/svg+xml; charset=utf-8');
    },
  };
}
