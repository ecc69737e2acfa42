// The published JSON shards as a RuntimeSource: the `all` collection holds every Listing in the default order
// with its trending and searchTrend as published, /shards/files/<slug>.json the stored files. Reading them back
// through buildRuntimeArtifacts gives an offline mirror the same artifacts (and answers) as the origin's shim.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StoredListing } from '../../src/domain/listing-view.ts';
import { ListingSchema, type Listing } from '../../src/domain/schemas.ts';
import type { RuntimeSource, SourceRow } from '../runtime-artifacts.ts';
import type { ShardManifest } from '../shards.ts';
import { SHARDS_ROOT } from '../shards.ts';

function* pageListings(siteDir: string, manifest: ShardManifest): Generator<Listing> {
  for (const page of manifest.collections.all!.pages) {
    yield* JSON.parse(readFileSync(join(siteDir, page.path), 'utf8')) as Listing[];
  }
}

export function shardSource(siteDir: string, manifest: ShardManifest): RuntimeSource {
  const idBySlug = new Map<string, string>();
  return {
    meta: () => ({ snapshotHash: manifest.snapshotHash, lastUpdated: manifest.lastUpdated }),
    *rows(): Generator<SourceRow> {
      for (const listing of pageListings(siteDir, manifest)) {
        // Checked once here; the object itself is kept as read, so its JSON keeps the origin's field order.
        const checked = ListingSchema.safeParse(listing);
        if (!checked.success) throw new Error(`shard listing ${String((listing as { id?: unknown }).id)} is not a Listing: ${checked.error.issues[0]!.message}`);
        idBySlug.set(listing.slug, listing.id);
        yield { id: listing.id, type: listing.type, installs: listing.installs, stars: listing.stars, trending: listing.trending, searchTrend: listing.searchTrend };
      }
    },
    *listings(): Generator<StoredListing> {
      for (const listing of pageListings(siteDir, manifest)) {
        // `url` was appended last when the shard was written (withUrl); without it the object is the stored one.
        const stored: Partial<Listing> = listing;
        delete stored.url;
        yield stored as StoredListing;
      }
    },
    *files() {
      const prefix = `${SHARDS_ROOT}/files/`;
      for (const entry of manifest.files) {
        const slug = entry.path.slice(prefix.length, -'.json'.length);
        const id = idBySlug.get(slug);
        if (id !== undefined) yield { id, json: readFileSync(join(siteDir, entry.path), 'utf8') };
      }
    },
  };
}
