// runtime/page-rows.jsonl: a short row per line of listings.jsonl, in the same order, written by the index stage as it
// writes that line (build/stages/index-stage.ts). It holds what a page renderer needs of every listing, whether it
// renders its page or not (src/page-model/page-data.ts): the figures that rank it, its top-list keys, the listing
// fields a copy group's pages show, and the SHA-256 of its line. A renderer reads the rows instead of parsing every
// listing whole and hashing it, and parses only the lines of the pages it renders; a full build at a large catalog
// has many renderers' shares, each of which read every listing.
import { hash } from 'node:crypto';
import { join } from 'node:path';
import { fileLines } from './file-lines.ts';
import type { ListingType } from '../domain/listing/listing-types.ts';
import type { StoredListing } from '../domain/listing/listing-view.ts';
import type { FigureProvenance } from '../domain/listing/ranking.ts';
import { slugOfId } from '../domain/schemas.ts';

export const RUNTIME_PAGE_ROWS_FILE = 'page-rows.jsonl';

/** What a copy group's other pages show of a listing in it (page-data.ts CopyRef, less its line number). */
export interface PageRowCopy {
  name: string;
  description: string;
  files: string[];
  copyOf: string | undefined;
  copyKind: StoredListing['copyKind'];
}

export interface PageRow {
  /** SHA-256 (base64url) of the listing's line of listings.jsonl, its newline excluded. */
  hash: string;
  id: string;
  slug: string;
  type: ListingType;
  repo: string;
  installs: number;
  stars: number;
  trending: number;
  searchTrend: number;
  metrics: FigureProvenance;
  /** Whether it has stored files (runtime/files/<doc>.json). */
  files: boolean;
  categories: string[];
  archived: string | undefined;
  /** Set when the listing is in a copy group (an origin or a copy). */
  copy: PageRowCopy | undefined;
}

/** The row of a listing, from the listing as written and its line's text (its newline excluded). */
export function pageRowLine(listing: StoredListing, line: string): string {
  const copy =
    listing.copyOf !== undefined || listing.copies !== undefined
      ? { name: listing.name, description: listing.description, files: listing.files, copyOf: listing.copyOf, copyKind: listing.copyKind }
      : 0;
  const { installs, stars, history } = listing.metrics;
  const row = [
    hash('sha256', line, 'base64url'),
    listing.id,
    listing.type,
    listing.repo,
    listing.installs,
    listing.stars,
    listing.trending,
    listing.searchTrend,
    installs,
    stars,
    history,
    listing.files.length > 0 ? 1 : 0,
    listing.categories,
    listing.archived ?? 0,
    copy,
  ];
  return `${JSON.stringify(row)}\n`;
}

type RowTuple = [
  string,
  string,
  ListingType,
  string,
  number,
  number,
  number,
  number,
  FigureProvenance['installs'],
  FigureProvenance['stars'],
  FigureProvenance['history'],
  0 | 1,
  string[],
  string | 0,
  PageRowCopy | 0,
];

/** The rows of a runtime, in document order. */
export function* readPageRows(runtimeDir: string): Generator<PageRow> {
  for (const bytes of fileLines(join(runtimeDir, RUNTIME_PAGE_ROWS_FILE))) {
    const [rowHash, id, type, repo, installs, stars, trending, searchTrend, mInstalls, mStars, mHistory, files, categories, archived, copy] = JSON.parse(
      bytes.toString(),
    ) as RowTuple;
    yield {
      hash: rowHash,
      id,
      slug: slugOfId(id),
      type,
      repo,
      installs,
      stars,
      trending,
      searchTrend,
      metrics: { installs: mInstalls, stars: mStars, history: mHistory },
      files: files === 1,
      categories,
      archived: archived === 0 ? undefined : archived,
      copy: copy === 0 ? undefined : { ...copy, copyOf: copy.copyOf ?? undefined },
    };
  }
}
