// Long-tail keyword load: thousands of distinct searches, each URL sent once per pass over the list, so the
// shim's answer cache (bounded by bytes) cannot serve them and the engine answers every request.
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { loadFigures, type LoadFigures } from './harness.ts';
import { STOP_WORDS } from '../src/search/tokenizer.ts';

/** Filter and sort variants of each word, as people and agents combine them. */
const VARIANTS = [
  '',
  '&type=skill',
  '&type=mcp',
  '&types=mcp,plugin',
  '&sort=stars',
  '&type=skill&sort=installs',
  '&category=developer-tools',
  '&limit=10',
  '&limit=50',
  '&type=marketplace',
];

/** Deterministic shuffle (LCG), so every run sends the same sequence. */
export function shuffle<T>(items: T[], seed = 7): T[] {
  let state = seed;
  const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

/**
 * `words` real words of the catalog's names and descriptions, by how many listings use them, from the 40th most
 * common on: very common and rare words alike.
 */
export function catalogWords(listingsPath: string, words = 2000): string[] {
  const counts = new Map<string, number>();
  for (const line of readFileSync(listingsPath, 'utf8').split('\n')) {
    if (!line) continue;
    const record = JSON.parse(line) as { name: string; description: string };
    for (const word of new Set(`${record.name} ${record.description}`.toLowerCase().match(/[a-z][a-z0-9]{2,}/g) ?? []))
      counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  return [...counts.entries()]
    .filter(([word]) => !STOP_WORDS.has(word))
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(40, 40 + words)
    .map(([word]) => word);
}

/** 20,000 distinct keyword searches: 2,000 words of the catalog (catalogWords) x ten filter/sort variants. */
export function longTailPaths(listingsPath: string, words = 2000): string[] {
  const pool = catalogWords(listingsPath, words);
  const paths = VARIANTS.flatMap((variant) => pool.map((word) => `/api/v1/listings?q=${word}${variant}${variant.includes('limit') ? '' : '&limit=20'}`));
  return shuffle(paths);
}

/**
 * Distinct misspelled keyword searches: catalog words of 5 letters or more with two inner neighbours swapped (one
 * edit, first letter kept), x the same variants. A word the swap turns into another word of the catalog is searched
 * as it is; the others take the typo-tolerance path (src/search/spelling.ts): a search that finds nothing, the
 * closest terms, then the corrected search.
 */
export function misspelledPaths(listingsPath: string, words = 2000): string[] {
  const pool = catalogWords(listingsPath, words)
    .filter((word) => word.length >= 5)
    .map((word) => word.slice(0, 2) + word[3] + word[2] + word.slice(4))
    .filter((typo, i, all) => all.indexOf(typo) === i);
  const paths = VARIANTS.flatMap((variant) => pool.map((word) => `/api/v1/listings?q=${word}${variant}${variant.includes('limit') ? '' : '&limit=20'}`));
  return shuffle(paths);
}

/** Load over `paths` in order across all connections (one shared cursor), so no URL repeats within a pass. */
export async function loadUnique(
  origin: string,
  paths: string[],
  options: { seconds: number; connections: number },
): Promise<LoadFigures & { sent: number; distinct: number }> {
  let cursor = 0;
  const result = await autocannon({
    url: origin,
    connections: options.connections,
    duration: options.seconds,
    requests: [{ method: 'GET', setupRequest: (request) => ({ ...request, path: paths[cursor++ % paths.length]! }) }],
  });
  return { ...loadFigures(result), sent: cursor, distinct: Math.min(cursor, paths.length) };
}
