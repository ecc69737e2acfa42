// Per-owner figures (GET /api/v1/owners/{owner}/stats) and an embeddable SVG badge per listing (GET /badges/{slug}.svg).
// Owner figures (src/domain/listing/owner-figures.ts, shared with the owner pages) come from one pass over the snapshot's ids
// and figure columns, made on first use.
import { CatalogError } from '../../src/domain/contract/errors.ts';
import { escapeXml } from '../../src/domain/escape-xml.ts';
import { LISTING_TYPES, RANKING_METRIC, TYPE_LABELS, type ListingType } from '../../src/domain/listing/listing-types.ts';
import { ownerStats, ownerTable, type OwnerTable } from '../../src/domain/listing/owner-figures.ts';
import { LIMITS } from '../../src/domain/contract/limits.ts';
import { snapshotResource } from '../catalog/snapshot.ts';
import { REAL_FIGURE } from '../../src/artifacts/runtime-manifest.ts';
import { json, type HandlersFor } from '../http/handler.ts';
import type { Services } from '../services.ts';

/** The snapshot's owner table, made on first use from its ids and figure columns. */
const OWNER_TABLE = snapshotResource('owner-table', (snapshot): OwnerTable => {
  const { store } = snapshot;
  const { columns } = store;
  return ownerTable(
    (function* rows() {
      for (let doc = 0; doc < store.count; doc++) {
        const id = store.idOf(doc);
        const repo = id.slice(id.indexOf(':') + 1, id.lastIndexOf('#'));
        const real = columns.realFigures[doc]!;
        yield { repo, type: LISTING_TYPES[columns.type[doc]!]!, installs: columns.installs[doc]!, stars: columns.stars[doc]!, installsReal: (real & REAL_FIGURE.installs) !== 0, starsReal: (real & REAL_FIGURE.stars) !== 0 };
      }
    })(),
  );
});


function compact(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(n >= 1e7 ? 0 : 1).replace(/\.0$/, '')}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(n >= 1e4 ? 0 : 1).replace(/\.0$/, '')}k`;
  return String(n);
}

/** A flat two-part badge; widths from a fixed per-character estimate (no font metrics on the server). */
export function badgeSvg(label: string, value: string, synthetic: boolean): string {
  const width = (text: string) => 10 + Math.round(text.length * 6.5);
  const lw = width(label);
  const vw = width(value);
  const color = synthetic ? '#8c959f' : '#1f883d';
  const title = `${label}: ${value}${synthetic ? ' (synthetic figure)' : ''}`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${lw + vw}" height="20" role="img" aria-label="${escapeXml(title)}"><title>${escapeXml(title)}</title>` +
    `<rect width="${lw}" height="20" fill="#555"/><rect x="${lw}" width="${vw}" height="20" fill="${color}"/>` +
    `<g fill="#fff" text-anchor="middle" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11">` +
    `<text x="${lw / 2}" y="14">${escapeXml(label)}</text><text x="${lw + vw / 2}" y="14">${escapeXml(value)}</text></g></svg>`;
}

export function ownerHandlers(services: Services): HandlersFor<'getOwnerStats' | 'getListingBadge'> {
  return {
    getOwnerStats: (ctx) => {
      const requested = ctx.params.owner ?? '';
      if (requested.length < 1 || requested.length > LIMITS.owner) throw new CatalogError('invalid_parameter', `Parameter 'owner' must be 1 to ${LIMITS.owner} characters.`);
      const stats = ownerStats(services.catalog.current.get(OWNER_TABLE), requested);
      if (!stats) throw new CatalogError('not_found', `No listing belongs to the owner '${requested}'.`, { resolution: 'Owners are the first part of a listing repo (owner/repo).' });
      return json(200, { ...stats, listings: `${services.config.baseUrl}/api/v1/listings?owner=${encodeURIComponent(stats.owner)}` });
    },
    getListingBadge: (ctx) => {
      const snapshot = services.catalog.current;
      const doc = snapshot.store.findDoc(ctx.params.slug ?? '');
      if (doc === undefined) throw new CatalogError('not_found', `No listing has the slug '${ctx.params.slug}'.`);
      const listing = JSON.parse(snapshot.store.readJson([doc])[0]!) as { type: ListingType; installs: number; stars: number; metrics: { installs: string; stars: string } };
      const metric = RANKING_METRIC[listing.type];
      const svg = badgeSvg(`${TYPE_LABELS[listing.type].singular.toLowerCase()} ${metric}`, compact(listing[metric]), listing.metrics[metric] !== 'real');
      return json(200, svg, { 'Cache-Control': 'public, max-age=3600', 'Content-Security-Policy': "default-src 'none'" }, 'image/svg+xml; charset=utf-8');
    },
  };
}
