// The live catalog the shim serves: prebuilt artifacts loaded at start (no indexing); listing JSON held in memory
// up to a bound (RESIDENT_LISTING_BYTES) and read from disk by byte offset beyond it, so memory stays bounded as
// the catalog grows.
import { closeSync, existsSync, openSync, read, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { readKeywordIndex, type KeywordIndexData } from '../search/index-file.ts';
import { slugOfId, type CatalogStats, type Category } from '../domain/schemas.ts';
import {
  KEYWORD_INDEX_DIR,
  readGone,
  readRuntimeColumns,
  readRuntimeManifest,
  RUNTIME_IDS_FILE,
  RUNTIME_POSTING_KEYS_FILE,
  type RuntimeColumns,
  type RuntimeManifest,
} from './runtime-manifest.ts';
import { findSlug } from './slug-table.ts';
import { TermTable } from '../search/term-table.ts';
import { readFilePlain, type ReadFile } from './shared-file.ts';
import type { SortKey } from '../domain/listing/ranking.ts';

export type Columns = RuntimeColumns;

/**
 * Bytes of listings.jsonl kept in memory from its start. Documents are numbered by installs, so a prefix holds the
 * listings most often shown; the rest is read by offset (one system call per run of listings, from the page cache).
 * The budget holds every listing of the embedded snapshot and of a 100k catalog, and the most-installed tenth at 1M.
 * A smaller one left half the listings distinct searches showed on disk, a few reads a request; this one costs
 * memory for requests/s (docs/decisions/007-resident-listings.md).
 */
const RESIDENT_LISTING_BYTES = 128 * 1024 * 1024;
/**
 * The part of the resident prefix read before the store is ready; the rest is read in the background, in chunks,
 * so start-up does not wait for the whole prefix (listings beyond what is loaded are read from disk meanwhile).
 */
const FIRST_READ_BYTES = 16 * 1024 * 1024;
const BACKGROUND_READ_BYTES = 8 * 1024 * 1024;

const NO_DOCS = new Uint32Array(0);
const HASH = 0x23;

export class CatalogStore {
  readonly dir: string;
  readonly manifest: RuntimeManifest;
  readonly count: number;
  readonly columns: Columns;
  readonly keywords: KeywordIndexData;
  readonly stats: CatalogStats;
  readonly categories: Category[];
  /** Identity order: documents are numbered by installs desc, id asc. */
  readonly identity: Uint32Array;
  /** ids.txt: each document's id at columns.idOffsets (decoded on use: making every id a string at start delayed the first answer). */
  private readonly idText: Buffer;
  /**
   * posting-keys.txt (the build writes the keys sorted): key → its index in columns.postingStarts by binary search.
   * Its bytes rather than a Map of strings: no heap for every key, and nothing to make on the first filter.
   */
  private readonly postingKeys: TermTable;
  private readonly gone: Map<string, { id: string; lastListed: string }>;
  private readonly fd: number;
  /** The start of listings.jsonl, held in memory: the most-installed listings (see RESIDENT_LISTING_BYTES). */
  private readonly resident: Buffer;
  /** Listings held in memory once the resident prefix is read (the first `residentListings` documents). */
  readonly residentListings: number;
  /** Bytes of `resident` read so far (from its start). */
  private loaded: number;
  private reading = false;
  private closing = false;
  private closed = false;
  private readonly loadedAll: Promise<void>;
  private resolveLoaded!: () => void;
  private readonly postingCache = new Map<string, Uint32Array>();

  /**
   * `readFile` reads the columns, ids, filter keys and keyword index whole (into shared memory for the shim, which
   * hands them to its keyword worker: sharedFilesReader). `residentBytes` 0 holds no listing in memory (a store
   * that only searches).
   */
  constructor(runtimeDir: string, memory: { residentBytes?: number; firstReadBytes?: number; readFile?: ReadFile } = {}) {
    const { residentBytes = RESIDENT_LISTING_BYTES, firstReadBytes = FIRST_READ_BYTES, readFile = readFilePlain } = memory;
    this.dir = runtimeDir;
    const manifest = readRuntimeManifest(runtimeDir);
    this.manifest = manifest;
    this.count = manifest.count;
    this.columns = readRuntimeColumns(runtimeDir, manifest.columns, readFile);
    this.idText = readFile(join(runtimeDir, RUNTIME_IDS_FILE));
    this.postingKeys = TermTable.fromBytes(readFile(join(runtimeDir, RUNTIME_POSTING_KEYS_FILE)), this.columns.postingStarts.length - 1);
    if (this.count > 0 && this.columns.idOffsets[this.count] !== this.idText.length + 1)
      throw new Error(`${RUNTIME_IDS_FILE} does not match its offsets; rebuild`);
    this.gone = readGone(runtimeDir);
    this.keywords = readKeywordIndex(join(runtimeDir, KEYWORD_INDEX_DIR), readFile);
    if (this.keywords.count !== this.count) throw new Error(`keyword index has ${this.keywords.count} listings, expected ${this.count}; rebuild`);
    this.stats = manifest.stats;
    this.categories = manifest.categories;
    this.identity = new Uint32Array(this.count);
    for (let doc = 0; doc < this.count; doc++) this.identity[doc] = doc;
    this.fd = openSync(join(runtimeDir, 'listings.jsonl'), 'r');
    // Whole listings only: the prefix ends where a listing ends.
    const { offsets } = this.columns;
    let last = 0;
    while (last < this.count && offsets[last + 1]! <= residentBytes) last++;
    this.residentListings = last;
    this.resident = Buffer.allocUnsafe(offsets[last]!);
    this.loaded = readSync(this.fd, this.resident, 0, Math.min(firstReadBytes, this.resident.length), 0);
    this.loadedAll = new Promise((resolve) => (this.resolveLoaded = resolve));
    this.readMore();
  }

  /** Settles when the whole resident prefix is in memory (or could not be read: disk reads serve it then). */
  whenResident(): Promise<void> {
    return this.loadedAll;
  }

  private readMore(): void {
    if (this.closing || this.loaded >= this.resident.length) {
      this.resolveLoaded();
      return;
    }
    this.reading = true;
    const length = Math.min(BACKGROUND_READ_BYTES, this.resident.length - this.loaded);
    read(this.fd, this.resident, this.loaded, length, this.loaded, (error, bytes) => {
      this.reading = false;
      if (this.closing) this.closeFile();
      if (error || bytes === 0) {
        this.resolveLoaded();
        return;
      }
      this.loaded += bytes;
      this.readMore();
    });
  }

  close(): void {
    this.closing = true;
    // A background read still uses the file: it is closed when that read returns.
    if (!this.reading) this.closeFile();
  }

  private closeFile(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }

  /** A listing that was removed and is still remembered (runtime/gone.json), by either id form. */
  removed(idOrSlug: string): { id: string; lastListed: string } | undefined {
    const hash = idOrSlug.lastIndexOf('#');
    const entry = this.gone.get((hash < 0 ? idOrSlug : idOrSlug.slice(hash + 1)).toLowerCase());
    if (!entry) return undefined;
    return hash < 0 || entry.id.toLowerCase() === idOrSlug.toLowerCase() ? entry : undefined;
  }

  /** Resolves either id form: a plain slug or the path-style {type}:{owner}/{repo}#{slug}. */
  findDoc(idOrSlug: string): number | undefined {
    const hash = idOrSlug.lastIndexOf('#');
    if (hash < 0) return this.bySlug(idOrSlug) ?? this.bySlug(idOrSlug.toLowerCase());
    const doc = this.bySlug(idOrSlug.slice(hash + 1));
    if (doc === undefined) return undefined;
    const { idOffsets } = this.columns;
    if (this.textIs(idOffsets[doc]!, idOffsets[doc + 1]! - 1, idOrSlug)) return doc;
    return this.idOf(doc).toLowerCase() === idOrSlug.toLowerCase() ? doc : undefined;
  }

  private bySlug(slug: string): number | undefined {
    const { idOffsets } = this.columns;
    return findSlug(this.columns.slugTable, slug, (doc) => {
      const end = idOffsets[doc + 1]! - 1;
      let start = end;
      while (start > idOffsets[doc]! && this.idText[start - 1] !== HASH) start--;
      return this.textIs(start, end, slug);
    });
  }

  /**
   * Whether bytes [start, end) of ids.txt are `text`, compared in place: a lookup by id then makes no string (two
   * decodes per lookup were a sixth of a batch's CPU). UTF-8 keeps ASCII as is; text beyond ASCII is decoded.
   */
  private textIs(start: number, end: number, text: string): boolean {
    const bytes = this.idText;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code > 0x7f) return bytes.toString('utf8', start, end) === text;
      if (start + i >= end || bytes[start + i] !== code) return false;
    }
    return end - start === text.length;
  }

  /** The listing id of a document. */
  idOf(doc: number): string {
    const { idOffsets } = this.columns;
    return this.idText.toString('utf8', idOffsets[doc]!, idOffsets[doc + 1]! - 1);
  }

  slugOf(doc: number): string {
    return slugOfId(this.idOf(doc));
  }

  /**
   * Stored listing JSON (without url) of each document as UTF-8 bytes, reading runs of consecutive documents in
   * one call. Answers are assembled from these bytes directly: decoding and re-encoding them costs more than
   * the search.
   */
  readRaw(docs: ArrayLike<number>): Buffer[] {
    const out: Buffer[] = new Array(docs.length);
    const { offsets } = this.columns;
    let i = 0;
    while (i < docs.length) {
      let j = i + 1;
      while (j < docs.length && docs[j] === docs[j - 1]! + 1) j++;
      const start = offsets[docs[i]!]!;
      const end = offsets[docs[j - 1]! + 1]!;
      let buffer: Buffer;
      if (end <= this.loaded) buffer = this.resident.subarray(start, end);
      else {
        buffer = Buffer.allocUnsafe(end - start);
        readSync(this.fd, buffer, 0, buffer.length, start);
      }
      for (let k = i; k < j; k++) {
        const from = offsets[docs[k]!]! - start;
        const to = offsets[docs[k]! + 1]! - start - 1; // drop the newline
        out[k] = buffer.subarray(from, to);
      }
      i = j;
    }
    return out;
  }

  /** Bytes of a document's stored JSON (without its newline). */
  rawSize(doc: number): number {
    const { offsets } = this.columns;
    return offsets[doc + 1]! - offsets[doc]! - 1;
  }

  /**
   * Copies a document's stored JSON, less its first `skip` and last `trim` bytes, into `target` at `at`; returns the
   * bytes written. No view is made: assembling an answer this way costs one copy per listing (readRaw's views and a
   * concat of them made three objects per listing and copied twice).
   */
  copyRaw(doc: number, target: Buffer, at: number, trim = 0, skip = 0): number {
    const { offsets } = this.columns;
    const start = offsets[doc]! + skip;
    const end = offsets[doc + 1]! - 1 - trim;
    if (offsets[doc + 1]! <= this.loaded) return this.resident.copy(target, at, start, end);
    return readSync(this.fd, target, at, end - start, start);
  }

  /** Stored listing JSON (without url) of each document. */
  readJson(docs: ArrayLike<number>): string[] {
    return this.readRaw(docs).map((raw) => raw.toString('utf8'));
  }

  /** Stored files of a listing as JSON text ('[]' when none are stored). */
  readFilesJson(doc: number): string {
    const path = join(this.dir, 'files', `${doc}.json`);
    return existsSync(path) ? readFileSync(path, 'utf8') : '[]';
  }

  /** Sorted document numbers of a filter key (c:<category>, o:<owner>); empty when unknown. */
  posting(key: string): Uint32Array {
    const cached = this.postingCache.get(key);
    if (cached) return cached;
    const k = this.postingKeys.indexOf(key);
    // Unknown keys come from requests: not cached, so they cannot grow the cache.
    if (k < 0) return NO_DOCS;
    const { postings, postingStarts } = this.columns;
    const list = postings.subarray(postingStarts[k]!, postingStarts[k + 1]!);
    this.postingCache.set(key, list);
    return list;
  }

  order(sort: SortKey): { perm: Uint32Array; rank: Uint32Array | undefined } {
    const c = this.columns;
    switch (sort) {
      case 'installs':
        return { perm: this.identity, rank: undefined };
      case 'stars':
        return { perm: c.permStars, rank: c.rankStars };
      case 'trending':
        return { perm: c.permTrending, rank: c.rankTrending };
      case 'searchTrend':
        return { perm: c.permSearchTrend, rank: c.rankSearchTrend };
    }
  }
}
