// Test helper: the real catalog text (name + description per listing) the embedding tests train on.

import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { listingText } from '../../src/embeddings/embedder.ts';

export interface CorpusListing {
  id: string;
  type: string;
  name: string;
  description: string;
  category?: string;
}

/** CATALOG_LISTINGS, else the repository's data/ copy, else shared/ beside the repository (as in CI). */
export function listingsPath(): string {
  const candidates = [
    process.env.CATALOG_LISTINGS,
    fileURLToPath(new URL('../../data/listings.jsonl', import.meta.url)),
    fileURLToPath(new URL('../../../shared/catalog/listings.jsonl', import.meta.url)),
    '/work/shared/catalog/listings.jsonl',
  ];
  for (const c of candidates) if (c && existsSync(c)) return c;
  throw new Error('catalog listings.jsonl not found: set CATALOG_LISTINGS to its path');
}

let cached: CorpusListing[] | undefined;

export function loadListings(): CorpusListing[] {
  cached ??= readFileSync(listingsPath(), 'utf8')
    .split('\n')
    .filter((l) => l.trim().length > 0)
    .map((l) => JSON.parse(l) as CorpusListing);
  return cached;
}

export function corpusTexts(every = 1): string[] {
  return loadListings()
    .filter((_, i) => i % every === 0)
    .map(listingText);
}

/** Cosine similarity (the dot product for unit vectors; 0 when either is zero). */
export function cosine(a: Float32Array, b: Float32Array): number {
  let s = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    s += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : s / Math.sqrt(na * nb);
}
