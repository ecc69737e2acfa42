// A listing's public JSON is its stored JSON plus its absolute page URL, which depends on the base URL the shim
// is configured with and so cannot be stored by the build. Answers are assembled from bytes: the stored bytes
// without their closing brace, then `,"url":"…"}`. That closing part is made once per listing and snapshot, on
// first use, and kept in one arena: a search page then costs two views per listing instead of string work.
import { urlSuffix } from '../../src/domain/listing-view.ts';
import type { CatalogStore } from '../../src/artifacts/runtime-store.ts';
import { snapshotResource, type Snapshot } from './snapshot.ts';

const COMMA = Buffer.from(',');

/** The `,"url":"…"}` closing bytes of each listing of one snapshot, for one base URL. */
class UrlSuffixes {
  private readonly store: CatalogStore;
  private readonly baseUrl: string;
  /** Where each listing's suffix starts in the arena (-1: not made yet). */
  private readonly start: Int32Array;
  private readonly length: Uint16Array;
  private arena: Buffer;
  private used = 0;

  constructor(store: CatalogStore, baseUrl: string) {
    this.store = store;
    this.baseUrl = baseUrl;
    this.start = new Int32Array(store.count).fill(-1);
    this.length = new Uint16Array(store.count);
    this.arena = Buffer.allocUnsafe(4096);
  }

  of(doc: number): Buffer {
    let start = this.start[doc]!;
    if (start < 0) {
      const text = urlSuffix(this.store.slugOf(doc), this.baseUrl);
      const size = Buffer.byteLength(text);
      // Views handed out earlier keep the old arena alive while they are used; new suffixes go to the larger one.
      if (this.used + size > this.arena.length) {
        const grown = Buffer.allocUnsafe(Math.max(this.arena.length * 2, this.used + size));
        this.arena.copy(grown, 0, 0, this.used);
        this.arena = grown;
      }
      start = this.used;
      this.arena.write(text, start);
      this.used += size;
      this.start[doc] = start;
      this.length[doc] = size;
    }
    return this.arena.subarray(start, start + this.length[doc]!);
  }
}

const suffixTables = snapshotResource('listing-url-suffixes', () => new Map<string, UrlSuffixes>());

function suffixesOf(snapshot: Snapshot, baseUrl: string): UrlSuffixes {
  const tables = snapshot.get(suffixTables);
  let table = tables.get(baseUrl);
  if (!table) tables.set(baseUrl, (table = new UrlSuffixes(snapshot.store, baseUrl)));
  return table;
}

/** The public JSON of each document as byte parts, comma-separated: concatenated, a JSON array's inside. */
export function listingsBytes(baseUrl: string, snapshot: Snapshot, docs: ArrayLike<number>): Buffer[] {
  const suffixes = suffixesOf(snapshot, baseUrl);
  const raws = snapshot.store.readRaw(docs);
  const parts: Buffer[] = new Array(raws.length > 0 ? raws.length * 3 - 1 : 0);
  let p = 0;
  for (let i = 0; i < raws.length; i++) {
    if (i > 0) parts[p++] = COMMA;
    const raw = raws[i]!;
    parts[p++] = raw.subarray(0, raw.length - 1);
    parts[p++] = suffixes.of(docs[i]!);
  }
  return parts;
}

/** The public JSON text of each document, with its page URL on this service. */
export function listingsJson(baseUrl: string, snapshot: Snapshot, docs: ArrayLike<number>): string[] {
  const suffixes = suffixesOf(snapshot, baseUrl);
  return snapshot.store.readRaw(docs).map((raw, i) => raw.toString('utf8', 0, raw.length - 1) + suffixes.of(docs[i]!).toString('utf8'));
}
