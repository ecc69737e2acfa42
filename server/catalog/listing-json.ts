// A listing's public JSON is its stored JSON plus its absolute page URL, which depends on the base URL the shim
// is configured with and so cannot be stored by the build. Answers are assembled from bytes: the stored bytes
// without their closing brace, then `,"url":"…"}`. That closing part is made once per listing and snapshot, on
// first use, and kept in one arena: a search page then costs two views per listing instead of string work.
import { urlSuffix } from '../../src/domain/listing/listing-view.ts';
import type { CatalogStore } from '../../src/artifacts/runtime-store.ts';
import { snapshotResource, type Snapshot } from './snapshot.ts';

const COMMA = 0x2c;
const EMPTY = Buffer.alloc(0);

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
    const start = this.made(doc);
    return this.arena.subarray(start, start + this.length[doc]!);
  }

  /** Bytes of a document's suffix. */
  size(doc: number): number {
    this.made(doc);
    return this.length[doc]!;
  }

  /** Copies a document's suffix into `target` at `at`; returns the bytes written. */
  copyTo(doc: number, target: Buffer, at: number): number {
    const start = this.made(doc);
    return this.arena.copy(target, at, start, start + this.length[doc]!);
  }

  /** Where the document's suffix starts in the arena, made on first use. */
  private made(doc: number): number {
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
    return start;
  }
}

const suffixTables = snapshotResource('listing-url-suffixes', () => new Map<string, UrlSuffixes>());

function suffixesOf(snapshot: Snapshot, baseUrl: string): UrlSuffixes {
  const tables = snapshot.get(suffixTables);
  let table = tables.get(baseUrl);
  if (!table) tables.set(baseUrl, (table = new UrlSuffixes(snapshot.store, baseUrl)));
  return table;
}

/**
 * How each listing sits in an answer that wraps it (/ask's ListItems): `open(i)` is written in place of the i-th
 * listing's opening brace, and `close` after its closing one.
 */
export interface ListingWrap {
  open(index: number): Buffer;
  close: Buffer;
}

export interface ListingsBodyOptions {
  /** The service's public base URL, which each listing's url starts with. */
  readonly baseUrl: string;
  /** Written before the first listing and after the last (default: nothing). */
  readonly head?: Buffer | undefined;
  readonly tail?: Buffer | undefined;
  readonly wrap?: ListingWrap | undefined;
  /** Gives the body's memory (default Buffer.allocUnsafe). */
  readonly allocate?: ((size: number) => Buffer) | undefined;
}

/**
 * One answer body: `head`, the public JSON of each document comma-separated (wrapped, with `wrap`), then `tail`,
 * written into a single buffer sized first (the stored bytes less their closing brace, then the `,"url":"…"}`
 * suffix). A search page, a batch, a read by id and an /ask answer are each one allocation and one copy per
 * listing, with no string made of the listings. `allocate` gives the body's memory (the listing routes lease it:
 * server/http/body-pool.ts).
 */
export function listingsBody(snapshot: Snapshot, docs: ArrayLike<number>, options: ListingsBodyOptions): Buffer {
  const { baseUrl, head = EMPTY, tail = EMPTY, wrap, allocate = Buffer.allocUnsafe } = options;
  const suffixes = suffixesOf(snapshot, baseUrl);
  const { store } = snapshot;
  const opens = wrap ? Array.from({ length: docs.length }, (_, i) => wrap.open(i)) : undefined;
  let size = head.length + tail.length + Math.max(0, docs.length - 1);
  for (let i = 0; i < docs.length; i++) size += store.rawSize(docs[i]!) - 1 + suffixes.size(docs[i]!);
  if (opens) for (const open of opens) size += open.length - 1 + wrap!.close.length;
  const body = allocate(size);
  let at = head.copy(body, 0);
  for (let i = 0; i < docs.length; i++) {
    if (i > 0) body[at++] = COMMA;
    if (opens) at += opens[i]!.copy(body, at);
    at += store.copyRaw(docs[i]!, body, at, 1, opens ? 1 : 0);
    at += suffixes.copyTo(docs[i]!, body, at);
    if (opens) at += wrap!.close.copy(body, at);
  }
  tail.copy(body, at);
  return body;
}

/** The public JSON text of each document, with its page URL on this service. */
export function listingsJson(baseUrl: string, snapshot: Snapshot, docs: ArrayLike<number>): string[] {
  const suffixes = suffixesOf(snapshot, baseUrl);
  return snapshot.store.readRaw(docs).map((raw, i) => raw.toString('utf8', 0, raw.length - 1) + suffixes.of(docs[i]!).toString('utf8'));
}
