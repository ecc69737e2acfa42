// The runtime artifacts' manifest and column file (runtime/ of a build): written by the build's index stage
// (build/stages/index-stage.ts), read by the shim at start (src/artifacts/runtime-store.ts) and by the build's
// later stages. The columns are declared once here, as kinds; the reader hands them back typed.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { CatalogStatsSchema, CategorySchema, slugOfId } from '../domain/schemas.ts';
import { readColumns, writeColumns, type ColumnKind } from './columns-file.ts';
import type { ReadFile } from './shared-file.ts';
import { isCurrentKeywordIndex } from '../search/index-file.ts';

export const RUNTIME_FORMAT = 8;

/** Bits of the realFigures column. */
export const REAL_FIGURE = { installs: 1, stars: 2 } as const;
/** Folder of the keyword index inside the runtime artifacts. */
export const KEYWORD_INDEX_DIR = 'search';
export const RUNTIME_MANIFEST_FILE = 'manifest.json';
export const RUNTIME_COLUMNS_FILE = 'columns.bin';
/** One line of listing JSON per document, in document order (the default order: installs desc, id asc). */
export const RUNTIME_LISTINGS_FILE = 'listings.jsonl';
/** The listing id of each document, one per line (no newline after the last). */
export const RUNTIME_IDS_FILE = 'ids.txt';
/** The filter posting keys (c:<category>, o:<owner>, r:<audit level>), sorted, one per line: key k's list starts at postingStarts[k]. */
export const RUNTIME_POSTING_KEYS_FILE = 'posting-keys.txt';
/** Stored files: one JSON ListingFile array per document that has any, named by its document number. */
export const RUNTIME_FILES_DIR = 'files';
export const runtimeFilesPath = (doc: number): string => `${RUNTIME_FILES_DIR}/${doc}.json`;
/**
 * Listings that left the catalog while the store still keeps their install history: id → the last day they were
 * listed (YYYY-MM-DD). The shim answers them 410 Gone instead of 404 for as long as they are in it.
 */
export const RUNTIME_GONE_FILE = 'gone.json';
const GoneSchema = z.record(z.string(), z.iso.date());

/** Removed listings by slug (the id form a client is most likely to hold), with their id and last listed day. */
export function readGone(runtimeDir: string): Map<string, { id: string; lastListed: string }> {
  const file = join(runtimeDir, RUNTIME_GONE_FILE);
  const gone = new Map<string, { id: string; lastListed: string }>();
  if (!existsSync(file)) return gone;
  for (const [id, lastListed] of Object.entries(GoneSchema.parse(JSON.parse(readFileSync(file, 'utf8'))))) {
    gone.set(slugOfId(id).toLowerCase(), { id, lastListed });
  }
  return gone;
}

/** Every numeric column of a build: per listing (doc order), sort permutations and ranks, the filter postings. */
export const RUNTIME_COLUMNS = {
  /** Byte offset of each listing's line in listings.jsonl (and one past the last). */
  offsets: 'Float64Array',
  type: 'Uint8Array',
  installs: 'Uint32Array',
  stars: 'Uint32Array',
  trending: 'Float32Array',
  searchTrend: 'Float32Array',
  popularity: 'Float32Array',
  /** Which figures are real, as bits (REAL_FIGURE): what owner totals and the stats may count. */
  realFigures: 'Uint8Array',
  /** updatedAt in whole seconds since the epoch (the updatedSince filter). */
  updated: 'Uint32Array',
  idRank: 'Uint32Array',
  permStars: 'Uint32Array',
  permTrending: 'Uint32Array',
  permSearchTrend: 'Uint32Array',
  rankStars: 'Uint32Array',
  rankTrending: 'Uint32Array',
  rankSearchTrend: 'Uint32Array',
  /** The filter posting lists, one after another (see RUNTIME_POSTING_KEYS_FILE). */
  postings: 'Uint32Array',
  /** Where each posting key's list starts in `postings` (and one past the last). */
  postingStarts: 'Uint32Array',
  /** Where each document's id starts in ids.txt (and, past the last, its length plus one). */
  idOffsets: 'Uint32Array',
  /** Documents by slug (src/artifacts/slug-table.ts). */
  slugTable: 'Uint32Array',
  /** The document of each listing's copy group origin (itself outside any group): folds results (distinct). */
  copyGroup: 'Uint32Array',
} as const satisfies Record<string, ColumnKind>;

type Kinds = typeof RUNTIME_COLUMNS;
type Typed = { Uint8Array: Uint8Array; Uint32Array: Uint32Array; Float32Array: Float32Array; Float64Array: Float64Array };
export type RuntimeColumns = { [name in keyof Kinds]: Typed[Kinds[name]] };

const ColumnLayoutSchema = z.record(
  z.string(),
  z.object({
    kind: z.enum(['Uint8Array', 'Uint32Array', 'Float32Array', 'Float64Array']),
    byteOffset: z.number().int().nonnegative(),
    length: z.number().int().nonnegative(),
  }),
);

export const RuntimeManifestSchema = z.object({
  format: z.number().int(),
  snapshotHash: z.string(),
  lastUpdated: z.string(),
  count: z.number().int().nonnegative(),
  columns: ColumnLayoutSchema,
  filesStored: z.number().int().nonnegative(),
  stats: CatalogStatsSchema,
  categories: z.array(CategorySchema),
});
export type RuntimeManifest = z.infer<typeof RuntimeManifestSchema>;

/** The manifest of runtime/ in `runtimeDir`, parsed; a build of another format asks to be rebuilt. */
export function readRuntimeManifest(runtimeDir: string): RuntimeManifest {
  const manifest = RuntimeManifestSchema.parse(JSON.parse(readFileSync(join(runtimeDir, RUNTIME_MANIFEST_FILE), 'utf8')));
  if (manifest.format !== RUNTIME_FORMAT) throw new Error(`runtime artifacts format ${manifest.format}, expected ${RUNTIME_FORMAT}; rebuild`);
  return manifest;
}

/**
 * The snapshot a build's runtime artifacts were made from, whatever their format (undefined when unreadable): the
 * change log of a new build names the build it replaces, which an older checkout may have written.
 */
export function readSnapshotHash(runtimeDir: string): string | undefined {
  try {
    const { snapshotHash } = JSON.parse(readFileSync(join(runtimeDir, RUNTIME_MANIFEST_FILE), 'utf8')) as { snapshotHash?: unknown };
    return typeof snapshotHash === 'string' ? snapshotHash : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a build's runtime artifacts are in the formats this code reads: its manifest and its keyword index. */
export function isCurrentRuntime(buildDir: string): boolean {
  const path = join(buildDir, 'runtime', RUNTIME_MANIFEST_FILE);
  if (!existsSync(path) || (JSON.parse(readFileSync(path, 'utf8')) as { format?: unknown }).format !== RUNTIME_FORMAT) return false;
  return isCurrentKeywordIndex(join(buildDir, 'runtime', KEYWORD_INDEX_DIR));
}

export function writeRuntimeColumns(runtimeDir: string, columns: RuntimeColumns): RuntimeManifest['columns'] {
  return writeColumns(join(runtimeDir, RUNTIME_COLUMNS_FILE), columns);
}

/** The columns of runtime/, each checked against its declared kind. */
export function readRuntimeColumns(runtimeDir: string, layout: RuntimeManifest['columns'], readFile?: ReadFile): RuntimeColumns {
  for (const [name, kind] of Object.entries(RUNTIME_COLUMNS)) {
    if (layout[name]?.kind !== kind) throw new Error(`runtime column ${name} is ${layout[name]?.kind ?? 'missing'}, expected ${kind}; rebuild`);
  }
  return readColumns(join(runtimeDir, RUNTIME_COLUMNS_FILE), layout, readFile) as RuntimeColumns;
}
