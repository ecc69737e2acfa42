// A snapshot record → the API Listing (CONTRACT.md), minus `url`, which depends on the public origin the
// server is configured with and is added when a listing is served or a page is built.
import type { Listing, ListingRecord } from '../schemas.ts';
import { SITE_PATHS } from '../site-paths.ts';
import { installLineOf, packagesOf } from './install-line.ts';
import { RANKING_METRIC } from './listing-types.ts';

export type StoredListing = Omit<Listing, 'url'>;

export function listingPath(slug: string): string {
  return SITE_PATHS.listing(slug);
}

/**
 * The author as a name: sources give front-matter authors as URLs ("https://github.com/Jeffallan"), with an email
 * or a link beside the name ("SerKo <https://github.com/serkodev>"), or as a whole sentence of promotion. A GitHub
 * URL becomes its account, another URL its host, a bracketed contact is dropped, and what is still no name (empty, or
 * longer than a name runs) is the repository's owner.
 */
export function authorName(author: string, repo: string): string {
  const owner = repo.slice(0, repo.indexOf('/'));
  let name = author.replace(/\s*[<(][^<>()]*(?:@|:\/\/|www\.|\.com|\.io)[^<>()]*[>)]/g, '').trim();
  const github = /^(?:https?:\/\/)?(?:www\.)?github\.com\/([A-Za-z0-9][A-Za-z0-9-]*)/i.exec(name);
  if (github) name = github[1]!;
  else if (/^https?:\/\//i.test(name)) name = name.replace(/^https?:\/\/(?:www\.)?/i, '').replace(/[/?#].*$/, '');
  if (!name || name.length > AUTHOR_MAX || /:\/\/|@/.test(name)) return owner;
  return name;
}

/** Longer than any name: a sentence, not an author. */
const AUTHOR_MAX = 60;

export function toStoredListing(record: ListingRecord, scores: { trending: number; searchTrend: number }): StoredListing {
  const categories = [record.category, ...(record.categories ?? []).filter((c) => c !== record.category)];
  const view: StoredListing = {
    id: record.id,
    slug: record.slug,
    type: record.type,
    name: record.name,
    description: record.description,
    repo: record.repo,
    author: authorName(record.author, record.repo),
    category: record.category,
    categories,
    tags: record.tags,
    installs: record.installs,
    stars: record.stars,
    updatedAt: record.updatedAt,
    ...(record.firstCommitAt ? { firstCommitAt: record.firstCommitAt } : {}),
    repoUrl: `https://github.com/${record.repo}`,
    trending: scores.trending,
    searchTrend: scores.searchTrend,
    // Whether the figure its type ranks by is real: a plugin's export says no (its installs are synthetic), its
    // repository stars, which rank it, are real.
    metricsSource: record.metrics[RANKING_METRIC[record.type]],
    metrics: record.metrics,
    installsHistory: record.installsHistory,
    source: record.source,
    files: record.files ?? [],
  };
  if (record.homepage) view.homepage = record.homepage;
  const line = installLineOf(record);
  if (line) {
    view.installCommand = line.command;
    if (line.installer) view.installer = line.installer;
  }
  const packages = packagesOf(record);
  if (packages.length > 0) view.packages = packages;
  if (record.type === 'mcp' && record.remotes && record.remotes.length > 0) view.remotes = record.remotes;
  if (record.alsoListedIn) view.alsoListedIn = record.alsoListedIn;
  if (record.marketplace) view.marketplace = record.marketplace;
  if (record.version) view.version = record.version;
  if (record.pluginCount !== undefined) view.pluginCount = record.pluginCount;
  return view;
}

/** The text that closes a stored listing's JSON with its absolute page URL (the stored JSON minus its `}` comes first). */
export function urlSuffix(slug: string, baseUrl: string): string {
  return `,"url":${JSON.stringify(baseUrl + listingPath(slug))}}`;
}

/** Adds the absolute page URL to a stored listing's JSON text without re-parsing it. */
export function withUrl(storedJson: string, slug: string, baseUrl: string): string {
  return storedJson.slice(0, -1) + urlSuffix(slug, baseUrl);
}
