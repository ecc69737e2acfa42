// /sitemap.xml (sitemaps.org 0.9): a sitemap index of shards /sitemaps/<group>-<n>.xml, each within the protocol's
// limits (SITEMAP_LIMITS below): the static pages, the category and comparison pages, and every
// listing page. Shards are yielded as they fill, so at a million listings only one shard is ever in memory.
import { XMLBuilder } from 'fast-xml-parser';
import { LISTING_TYPES } from '../../../src/domain/listing/listing-types.ts';
import { hasShortlist } from '../../../src/domain/listing/shortlists.ts';
import { OWNER_PAGE_MIN_LISTINGS, ownerKey } from '../../../src/domain/listing/owner-figures.ts';
import { SITE_PATHS } from '../../../src/domain/site-paths.ts';
import { loadDocs } from '../../../src/docs/index.ts';
import type { StageContext } from '../stage.ts';
import type { GeneratedFile } from '../../site-writer.ts';
import { listingsAndHighlights } from './discovery-data.ts';
import { EXTRA_PATHS, MEDIA_TYPES, operationPath, requireRuntime } from './site-links.ts';

export const SITEMAP_XMLNS = 'http://www.sitemaps.org/schemas/sitemap/0.9';
/** sitemaps.org: at most 50,000 URLs and 50 MB (52,428,800 bytes) uncompressed per file, index files included. */
export const SITEMAP_LIMITS = { urls: 50_000, bytes: 52_428_800 } as const;

export interface SitemapUrl {
  loc: string;
  /** W3C Datetime. */
  lastmod: string;
}

export interface SitemapGroup {
  /** Shard name prefix: /sitemaps/<name>-<n>.xml. */
  name: string;
  urls: Iterable<SitemapUrl> | AsyncIterable<SitemapUrl>;
}

const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@_', format: false });
const declaration = { '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8' } };

/** An ISO 8601 time as a W3C Datetime in UTC to the second; undefined when it does not parse. */
export function w3cDatetime(iso: string): string | undefined {
  const time = Date.parse(iso);
  return Number.isNaN(time) ? undefined : new Date(time).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

// Characters the builder writes as entities (&amp; &lt; &gt; &apos; &quot;) and the bytes each adds.
const ENTITY_EXTRA: Record<string, number> = { '&': 4, '<': 3, '>': 3, "'": 5, '"': 5 };
function xmlTextBytes(text: string): number {
  let extra = 0;
  for (const match of text.matchAll(/[&<>'"]/g)) extra += ENTITY_EXTRA[match[0]]!;
  return Buffer.byteLength(text) + extra;
}
/** Exact bytes of one <url> element as the builder writes it (format: false). */
const URL_ELEMENT_BYTES = '<url><loc></loc><lastmod></lastmod></url>'.length;
const urlBytes = (url: SitemapUrl) => URL_ELEMENT_BYTES + xmlTextBytes(url.loc) + xmlTextBytes(url.lastmod);

function urlset(urls: SitemapUrl[]): string {
  return builder.build({ ...declaration, urlset: { '@_xmlns': SITEMAP_XMLNS, url: urls } }) as string;
}
const EMPTY_URLSET_BYTES = Buffer.byteLength(urlset([]));

/**
 * The pure core: groups of URLs → shard files (yielded as each fills) and, last, the index. A shard closes at
 * `limits.urls` URLs or before its bytes would pass `limits.bytes`.
 */
export async function* sitemapFilesFrom(
  baseUrl: string,
  groups: SitemapGroup[],
  limits: { urls: number; bytes: number } = SITEMAP_LIMITS,
): AsyncGenerator<GeneratedFile> {
  const index: SitemapUrl[] = [];
  for (const group of groups) {
    let shard: SitemapUrl[] = [];
    let bytes = EMPTY_URLSET_BYTES;
    let lastmod = '';
    let shards = 0;
    const flush = (): GeneratedFile => {
      const path = EXTRA_PATHS.sitemapShard(group.name, ++shards);
      const body = urlset(shard);
      // The byte count above is exact; this guards the invariant should the builder's output ever change.
      if (Buffer.byteLength(body) > limits.bytes) throw new Error(`${path} is ${Buffer.byteLength(body)} bytes, over the sitemap limit`);
      index.push({ loc: baseUrl + path, lastmod });
      shard = [];
      bytes = EMPTY_URLSET_BYTES;
      lastmod = '';
      return { path, contentType: MEDIA_TYPES.xml, body };
    };
    for await (const url of group.urls) {
      const size = urlBytes(url);
      if (EMPTY_URLSET_BYTES + size > limits.bytes) throw new Error(`a sitemap URL is longer than a whole sitemap may be: ${url.loc.slice(0, 100)}`);
      if (shard.length === limits.urls || bytes + size > limits.bytes) yield flush();
      shard.push(url);
      bytes += size;
      // Same format throughout (w3cDatetime), so the latest is the greatest string.
      if (url.lastmod > lastmod) lastmod = url.lastmod;
    }
    if (shard.length > 0) yield flush();
  }
  if (index.length > limits.urls) throw new Error(`${index.length} sitemap shards: more than one index may list`);
  const body = builder.build({ ...declaration, sitemapindex: { '@_xmlns': SITEMAP_XMLNS, sitemap: index } }) as string;
  yield { path: operationPath('getSitemap'), contentType: MEDIA_TYPES.xml, body };
}

/** The site's pages, by group: what the sitemap lists. The login page is left out: there is nothing to index. */
export function siteGroups(ctx: Pick<StageContext, 'baseUrl' | 'buildDir' | 'runtime'>): SitemapGroup[] {
  const runtime = requireRuntime(ctx);
  const snapshot = w3cDatetime(runtime.lastUpdated) ?? new Date(0).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const at = (path: string): SitemapUrl => ({ loc: ctx.baseUrl + path, lastmod: snapshot });
  const pages = [
    SITE_PATHS.home,
    SITE_PATHS.browse,
    SITE_PATHS.mcpHub,
    SITE_PATHS.docsIndex,
    ...loadDocs().map((doc) => SITE_PATHS.doc(doc.slug)),
    ...LISTING_TYPES.map((type) => SITE_PATHS.type(type)),
  ].map(at);
  const categories = runtime.categories.flatMap((category) => [
    at(SITE_PATHS.category(category.type, category.name)),
    ...(hasShortlist(category) ? [at(SITE_PATHS.compare(category.type, category.name))] : []),
  ]);
  // An owner page changes when any of its listings does: its lastmod is their latest.
  const ownerLastmod = new Map<string, string>();
  const ownerListings = new Map<string, number>();
  async function* listings(): AsyncGenerator<SitemapUrl> {
    for await (const listing of listingsAndHighlights(ctx)) {
      const lastmod = w3cDatetime(listing.updatedAt) ?? snapshot;
      const owner = ownerKey(listing.repo);
      if ((ownerLastmod.get(owner) ?? '') < lastmod) ownerLastmod.set(owner, lastmod);
      ownerListings.set(owner, (ownerListings.get(owner) ?? 0) + 1);
      yield { loc: ctx.baseUrl + SITE_PATHS.listing(listing.slug), lastmod };
    }
  }
  function* owners(): Generator<SitemapUrl> {
    for (const [owner, lastmod] of [...ownerLastmod].sort(([a], [b]) => (a < b ? -1 : 1))) {
      if (ownerListings.get(owner)! >= OWNER_PAGE_MIN_LISTINGS) yield { loc: ctx.baseUrl + SITE_PATHS.owner(owner), lastmod };
    }
  }
  return [
    { name: 'pages', urls: pages },
    { name: 'categories', urls: categories },
    { name: 'listings', urls: listings() },
    // After the listings: the owners are known once every listing has been read.
    { name: 'owners', urls: owners() },
  ];
}

export function sitemapFiles(ctx: StageContext): AsyncGenerator<GeneratedFile> {
  return sitemapFilesFrom(ctx.baseUrl, siteGroups(ctx));
}
