// JSON shards: the whole catalog as static pages of Listings (overall and per type, in the default order:
// installs desc, id asc) plus every listing's stored files, with a manifest of counts, sizes and SHA-256
// checksums, so a CDN can serve reads and a mirror can fetch and verify the snapshot without the shim.
import { hash } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream, readdirSync, readFileSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { LISTING_TYPES } from '../../src/domain/listing/listing-types.ts';
import { urlSuffix } from '../../src/domain/listing/listing-view.ts';
import { slugOfId } from '../../src/domain/schemas.ts';
import { currentBuild } from '../../src/artifacts/build-dirs.ts';
import { CHANGE_LOG_PATH, ChangeLogWriter } from '../change-log.ts';
import { exportCatalog } from '../export-writer.ts';
import {
  readRuntimeManifest,
  readSnapshotHash,
  RUNTIME_FILES_DIR,
  RUNTIME_GONE_FILE,
  RUNTIME_IDS_FILE,
  RUNTIME_LISTINGS_FILE,
  runtimeFilesPath,
} from '../../src/artifacts/runtime-manifest.ts';
import { fileLines } from '../../src/artifacts/file-lines.ts';
import type { Stage, StageContext } from './stage.ts';
import { reusableSite, SiteWriter } from '../site-writer.ts';

export const SHARD_FORMAT = 1;
export const SHARD_PAGE_SIZE = 1000;
export const SHARDS_ROOT = '/shards';
/** The snapshot as this build ingested it, in the export format: what a mirror rebuilds the whole site from. */
export const SHARD_EXPORT_PATH = `${SHARDS_ROOT}/export/listings.jsonl`;
/** Listings removed while their history is kept (runtime/gone.json): a mirror answers 410 for them as the origin does. */
export const SHARD_GONE_PATH = `${SHARDS_ROOT}/gone.json`;
/**
 * Beside the build's site, not published: the SHA-256 of every line of the export by id, so that the next build's change
 * log takes the table of this export from it instead of reading and hashing the export again (change-log.ts).
 */
export const EXPORT_DIGESTS_FILE = 'shards/export-digests.txt';

export interface ShardEntry {
  /** Site path of the file, e.g. /shards/all/page-0001.json. */
  path: string;
  count: number;
  bytes: number;
  sha256: string;
}

export interface ShardManifest {
  format: number;
  snapshotHash: string;
  lastUpdated: string;
  count: number;
  pageSize: number;
  /** `all` and one collection per listing type, each a list of pages in the default order. */
  collections: Record<string, { count: number; pages: ShardEntry[] }>;
  /** Stored files per listing: /shards/files/<slug>.json holds that listing's ListingFile array. */
  files: ShardEntry[];
  /**
   * The ingested export (records as ingested, stored files in `files`), with the history end its records without
   * metrics.installsAsOf are dated by: ingest(export) + the same build code gives this build's output.
   */
  export: ShardEntry & { historyEnd: string };
  /** What changed since the build this one replaced (change-log.ts); `from` is that build's snapshot. */
  changes: ShardEntry & { from: string | null };
  /** Removed listings still remembered, id → the last day listed (the runtime's gone.json). */
  gone: ShardEntry;
}

const sha256 = (body: Buffer) => hash('sha256', body);
const pageName = (n: number) => `page-${String(n).padStart(4, '0')}.json`;

/**
 * The ingested snapshot in the export format, written straight from the store to its place in site/ (never held), and
 * the change log against the build being replaced, from the export's lines as they are written; then the export's .br
 * and .gz are made on libuv's threads while the log is put together on this one.
 */
async function writeExportAndChanges(
  ctx: Pick<StageContext, 'buildDir' | 'previousBuild'> & { database: string },
  replaced: string | undefined,
  snapshotHash: string,
  scratch: string,
  writer: SiteWriter,
): Promise<{ exported: ShardManifest['export']; changes: ShardManifest['changes'] }> {
  const previousSnapshot = replaced ? readSnapshotHash(join(replaced, 'runtime')) : undefined;
  const digestsOut = join(ctx.buildDir, EXPORT_DIGESTS_FILE);
  mkdirSync(join(digestsOut, '..'), { recursive: true });
  const changesOut = join(scratch, 'changes.json');
  const log = await ChangeLogWriter.open(
    replaced && previousSnapshot
      ? {
          snapshotHash: previousSnapshot,
          exportFile: join(replaced, 'site', SHARD_EXPORT_PATH),
          // --force (no previous build to reuse) hashes the replaced export anew.
          digestsFile: ctx.previousBuild === undefined ? undefined : join(replaced, EXPORT_DIGESTS_FILE),
        }
      : undefined,
    { snapshotHash, digestsOut },
    changesOut,
  );
  const out = join(scratch, 'listings.jsonl');
  const { listings, historyEnd } = await exportCatalog({ database: ctx.database, out, beside: false, onLine: (line) => log.line(line) }).catch(
    (error: unknown) => {
      log.discard();
      throw error;
    },
  );
  const [adopted, changes] = await Promise.all([
    writer.adopt({ path: SHARD_EXPORT_PATH, contentType: 'application/jsonl' }, out),
    (async (): Promise<ShardManifest['changes']> => {
      const written = await log.finish();
      const { bytes, sha256: digest } = await writer.adopt({ path: CHANGE_LOG_PATH, contentType: 'application/json' }, changesOut);
      return { path: CHANGE_LOG_PATH, count: written.added + written.changed + written.removed, bytes, sha256: digest, from: written.from };
    })(),
  ]);
  return { exported: { path: SHARD_EXPORT_PATH, count: listings, bytes: adopted.bytes, sha256: adopted.sha256, historyEnd }, changes };
}

/** A shard page being filled, as bytes: `[`, each stored listing's JSON with its page URL (withUrl), `,` between, `]`. */
class ShardPage {
  count = 0;
  private bytes = Buffer.allocUnsafe(1 << 20);
  private length = 1;

  constructor() {
    this.bytes[0] = 0x5b;
  }

  /** `stored`: a runtime listing's JSON, whose closing `}` urlSuffix's text replaces (listing-view.ts withUrl). */
  add(stored: Buffer, suffix: string): void {
    const suffixBytes = Buffer.byteLength(suffix);
    // The comma, the listing without its `}`, its suffix, and room for the closing `]`.
    this.reserve(1 + stored.length - 1 + suffixBytes + 1);
    if (this.count++ > 0) this.bytes[this.length++] = 0x2c;
    this.length += stored.copy(this.bytes, this.length, 0, stored.length - 1);
    this.length += this.bytes.write(suffix, this.length);
  }

  /** The page's bytes; the page is not added to after. */
  body(): Buffer {
    this.bytes[this.length++] = 0x5d;
    return this.bytes.subarray(0, this.length);
  }

  private reserve(bytes: number): void {
    if (this.length + bytes <= this.bytes.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.length + bytes));
    this.bytes.copy(grown, 0, 0, this.length);
    this.bytes = grown;
  }
}

/** The document numbers that have stored files (runtime/files/<doc>.json), ascending. */
function docsWithFiles(runtimeDir: string): Uint32Array {
  let names: string[];
  try {
    names = readdirSync(join(runtimeDir, RUNTIME_FILES_DIR));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new Uint32Array(0);
    throw error;
  }
  const docs = new Uint32Array(names.length);
  let count = 0;
  for (const name of names) {
    const doc = /^(\d+)\.json$/.exec(name)?.[1];
    if (doc !== undefined && runtimeFilesPath(Number(doc)) === `${RUNTIME_FILES_DIR}/${name}`) docs[count++] = Number(doc);
  }
  return docs.subarray(0, count).sort();
}

/** One file entry as it sits in the manifest's `files` array (JSON.stringify(manifest, null, 1): two spaces deep). */
const manifestElement = (entry: ShardEntry) => JSON.stringify(entry, null, 1).replace(/^/gm, '  ');
const FILES_PLACEHOLDER = '\u0000files';

/**
 * Writes the manifest as JSON.stringify(manifest, null, 1) would, with the `files` entries (one per listing with
 * stored files: as many as the listings) streamed from the spool they were appended to as the listings were read.
 */
async function writeManifest(manifest: Omit<ShardManifest, 'files'>, filesSpool: string, out: string): Promise<void> {
  const { format, snapshotHash, lastUpdated, count, pageSize, collections, ...rest } = manifest;
  // The key order of ShardManifest, `files` where it was always written.
  const ordered = { format, snapshotHash, lastUpdated, count, pageSize, collections, files: FILES_PLACEHOLDER, ...rest };
  const [head, tail] = JSON.stringify(ordered, null, 1).split(JSON.stringify(FILES_PLACEHOLDER)) as [string, string];
  const file = createWriteStream(out);
  const write = async (text: string | Buffer) => {
    if (!file.write(text)) await once(file, 'drain');
  };
  const empty = statSync(filesSpool).size === 0;
  await write(empty ? `${head}[]` : `${head}[\n`);
  for await (const chunk of createReadStream(filesSpool)) await write(chunk as Buffer);
  file.end(empty ? tail : `\n ]${tail}`);
  await once(file, 'close');
}

/**
 * What the shards stage holds at most: the change log's table of the previous export (an id and a digest per listing,
 * change-log.ts) and the shard pages being compressed (WRITES_IN_FLIGHT of about a megabyte each, with their output).
 */
const SHARDS_BASE_BYTES = 128 * 2 ** 20;
const SHARDS_BYTES_PER_LISTING = 256;

export const SHARDS_STAGE: Stage = {
  name: 'shards',
  // The runtime's listings, ids, stored files and gone.json; its files go under /shards, beside the pages.
  after: ['index'],
  memoryBytes: (listings) => SHARDS_BASE_BYTES + SHARDS_BYTES_PER_LISTING * listings,
  async run(ctx) {
    const runtimeDir = join(ctx.buildDir, 'runtime');
    const manifest = readRuntimeManifest(runtimeDir);
    // A shard file with the same bytes as the replaced build's is linked from it with its .br and .gz, not compressed
    // again: a change of a few listings leaves the pages of the collections they are not in, and their stored files.
    const writer = new SiteWriter(join(ctx.buildDir, 'site'), { tops: ctx.siteTops, pageEntries: ctx.pageEntries, previous: reusableSite(ctx) });
    const collections: ShardManifest['collections'] = {};
    const pending = new Map<string, ShardPage>();
    for (const name of ['all', ...LISTING_TYPES]) {
      collections[name] = { count: 0, pages: [] };
      pending.set(name, new ShardPage());
    }
    const flush = async (name: string) => {
      const page = pending.get(name)!;
      if (page.count === 0) return;
      const collection = collections[name]!;
      const body = page.body();
      const path = `${SHARDS_ROOT}/${name}/${pageName(collection.pages.length + 1)}`;
      pending.set(name, new ShardPage());
      await writer.write({ path, contentType: 'application/json', body });
      collection.pages.push({ path, count: page.count, bytes: body.length, sha256: sha256(body) });
      collection.count += page.count;
    };
    // Scratch files (the export and change log before they are taken into site/, the spooled manifest entries)
    // live in the build directory: the same file system, so taking them in is a rename.
    const scratch = mkdtempSync(join(ctx.buildDir, 'shards-'));
    try {
      // ids.txt and listings.jsonl line up, a line per listing: read side by side, neither held whole. The listings'
      // lines go into the pages as the bytes they are: each is in two pages.
      const ids = fileLines(join(runtimeDir, RUNTIME_IDS_FILE));
      const lines = fileLines(join(runtimeDir, RUNTIME_LISTINGS_FILE));
      const withFiles = docsWithFiles(runtimeDir);
      let nextWithFiles = 0;
      const filesSpool = join(scratch, 'files.json');
      const spool = createWriteStream(filesSpool);
      let filesListed = 0;
      let doc = 0;
      try {
        for (const line of lines) {
          if (doc % 1000 === 0) ctx.signal?.throwIfAborted();
          const next = ids.next();
          if (next.done) throw new Error(`${RUNTIME_IDS_FILE} has fewer lines than ${RUNTIME_LISTINGS_FILE}`);
          const id = next.value.toString('utf8');
          const slug = slugOfId(id);
          const type = id.slice(0, id.indexOf(':'));
          const suffix = urlSuffix(slug, ctx.baseUrl);
          for (const name of ['all', type]) {
            const page = pending.get(name)!;
            page.add(line, suffix);
            if (page.count === SHARD_PAGE_SIZE) await flush(name);
          }
          while (nextWithFiles < withFiles.length && withFiles[nextWithFiles]! < doc) nextWithFiles++;
          if (withFiles[nextWithFiles] === doc) {
            const body = readFileSync(join(runtimeDir, runtimeFilesPath(doc)));
            const path = `${SHARDS_ROOT}/files/${slug}.json`;
            await writer.write({ path, contentType: 'application/json', body });
            const entry: ShardEntry = { path, count: (JSON.parse(body.toString('utf8')) as unknown[]).length, bytes: body.length, sha256: sha256(body) };
            if (!spool.write(`${filesListed++ === 0 ? '' : ',\n'}${manifestElement(entry)}`)) await once(spool, 'drain');
          }
          doc++;
          if (doc % 5000 === 0) ctx.progress(doc, manifest.count, 'listings in shards');
        }
      } finally {
        // Its file is closed when it is left, read to its end or not.
        ids.return(undefined);
      }
      spool.end();
      await once(spool, 'close');
      for (const name of pending.keys()) await flush(name);
      // The stages run before `current` moves: it is still the build this one replaces.
      const { exported, changes } = await writeExportAndChanges(
        { buildDir: ctx.buildDir, previousBuild: ctx.previousBuild, database: ctx.dirs.database },
        currentBuild(ctx.dirs),
        manifest.snapshotHash,
        scratch,
        writer,
      );
      const goneBody = readFileSync(join(runtimeDir, RUNTIME_GONE_FILE));
      await writer.write({ path: SHARD_GONE_PATH, contentType: 'application/json', body: goneBody });
      const gone: ShardEntry = {
        path: SHARD_GONE_PATH,
        count: Object.keys(JSON.parse(goneBody.toString('utf8')) as object).length,
        bytes: goneBody.length,
        sha256: sha256(goneBody),
      };
      const manifestFile = join(scratch, 'manifest.json');
      await writeManifest(
        {
          format: SHARD_FORMAT,
          snapshotHash: manifest.snapshotHash,
          lastUpdated: manifest.lastUpdated,
          count: manifest.count,
          pageSize: SHARD_PAGE_SIZE,
          collections,
          export: exported,
          changes,
          gone,
        },
        filesSpool,
        manifestFile,
      );
      await writer.adopt({ path: `${SHARDS_ROOT}/manifest.json`, contentType: 'application/json' }, manifestFile);
      await writer.finish();
      if (writer.carried > 0) ctx.log(`shards: ${writer.carried} unchanged files linked from the previous build`);
    } finally {
      await writer.settle();
      rmSync(scratch, { recursive: true, force: true });
    }
    ctx.progress(manifest.count, manifest.count);
  },
};
