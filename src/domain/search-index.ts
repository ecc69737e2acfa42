// FlexSearch options shared by the build (which indexes and exports) and the server (which imports).
// An exported FlexSearch index only re-imports under identical options, so they live here and nowhere else.
import { Charset, Encoder, Index, type EncoderOptions } from 'flexsearch';
import English from 'flexsearch/lang/en';
import type { SearchField } from './ranking.ts';

export const SEARCH_FIELDS: readonly SearchField[] = ['name', 'ident', 'description'];

/** English normalisation, stop words and stemming, so "servers" finds "server" and "the" finds nothing. */
export function createEncoder(): Encoder {
  // The constructor merges several option sets at run time; its type declares only one.
  const MergingEncoder = Encoder as unknown as new (...options: EncoderOptions[]) => Encoder;
  // No encoder cache: FlexSearch's cache expires on a timer and changes results while warm, which would make
  // two builds of the same catalog differ.
  return new MergingEncoder(Charset.Normalize, English as EncoderOptions, { cache: false });
}

const TOKENIZE: Record<SearchField, 'forward' | 'strict'> = {
  // Prefix matching on names and owners ("postg" finds PostgreSQL); whole words in descriptions keep the index small.
  name: 'forward',
  ident: 'forward',
  description: 'strict',
};

export type SearchIndexes = Record<SearchField, Index>;

export function createSearchIndexes(): SearchIndexes {
  const make = (field: SearchField) => new Index({ tokenize: TOKENIZE[field], resolution: 9, encoder: createEncoder(), cache: false });
  return { name: make('name'), ident: make('ident'), description: make('description') };
}

/** The text each field indexes for a listing. */
export function fieldTexts(listing: { name: string; repo: string; author: string; description: string }): Record<SearchField, string> {
  const [owner = '', repoName = ''] = listing.repo.split('/');
  const ident = owner === listing.author ? `${owner} ${repoName}` : `${owner} ${repoName} ${listing.author}`;
  return { name: listing.name, ident, description: listing.description };
}

/** Raw query words; each is looked up on its own so that terms may match in different fields. */
export function queryWords(query: string): string[] {
  return query.split(/[^\p{L}\p{N}]+/u).filter((word) => word.length > 0);
}
