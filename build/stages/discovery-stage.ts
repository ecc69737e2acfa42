// The discovery stage: every generator returns files (pure data), the SiteWriter puts them into the build.
// Generators are listed here; each module owns its documents.
import { join } from 'node:path';
import type { Stage, StageContext } from './stage.ts';
import { reusableSite, SiteWriter, type GeneratedFile } from '../site-writer.ts';
import { agentSurfaceFiles } from './discovery/agent-documents.ts';
import { aiCatalogFiles } from './discovery/ai-catalog.ts';
import { apiCatalogFiles } from './discovery/api-catalog.ts';
import { feedFiles } from './discovery/feeds.ts';
import { llmsFiles } from './discovery/llms.ts';
import { markdownPageFiles } from './discovery/markdown-pages.ts';
import { openApiFiles } from './discovery/openapi.ts';
import { sitemapFiles } from './discovery/sitemap.ts';

/** Returns its files at once, or yields them one by one when they are too many to hold together (sitemap shards). */
export type DiscoveryGenerator = (ctx: StageContext) => GeneratedFile[] | Promise<GeneratedFile[]> | AsyncIterable<GeneratedFile>;

export const DISCOVERY_GENERATORS: DiscoveryGenerator[] = [
  (ctx) => openApiFiles(ctx.baseUrl),
  agentSurfaceFiles,
  apiCatalogFiles,
  aiCatalogFiles,
  markdownPageFiles,
  // Before the files that print the highlights: its pass over the listings collects them (discovery-data.ts).
  sitemapFiles,
  llmsFiles,
  feedFiles,
];

/**
 * What the discovery stage holds at most: the highlights (top lists, shortlists) and the sitemap's owners (a key and a
 * date per owner, at most one per listing); sitemap shards are written one at a time.
 */
const DISCOVERY_BASE_BYTES = 128 * 2 ** 20;
const DISCOVERY_BYTES_PER_LISTING = 256;

export const DISCOVERY_STAGE: Stage = {
  name: 'discovery',
  // The runtime's listings and manifest only; its files go beside the pages.
  after: ['index'],
  memoryBytes: (listings) => DISCOVERY_BASE_BYTES + DISCOVERY_BYTES_PER_LISTING * listings,
  async run(ctx) {
    // Sitemaps, feeds and llms files whose bytes did not change are linked from the replaced build, not compressed again.
    const writer = new SiteWriter(join(ctx.buildDir, 'site'), { tops: ctx.siteTops, pageEntries: ctx.pageEntries, previous: reusableSite(ctx) });
    try {
      let done = 0;
      for (const generate of DISCOVERY_GENERATORS) {
        ctx.signal?.throwIfAborted();
        for await (const file of await generate(ctx)) await writer.write(file);
        ctx.progress(++done, DISCOVERY_GENERATORS.length, 'generators');
      }
      await writer.finish();
    } finally {
      await writer.settle();
    }
  },
};
