// `catalog mirror <base-url> <dir>`: fetch the published JSON shards of a running instance into a directory,
// verifying every file against the SHA-256 of the shards manifest. An interrupted mirror resumes: files already
// in place and verified are kept, missing or bad ones fetched again. Each file is written under a temporary
// name and renamed into place only once its checksum matches, and the manifest is written last, so a
// directory with a manifest always holds the complete, verified snapshot it describes. Then the mirror builds
// its own site from the verified export (mirror-build.ts), so it serves everything the origin serves.
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { basename, dirname, join } from 'node:path';
import type { ShardEntry, ShardManifest } from '../stages/shards-stage.ts';
import { ChangeLogSchema, patchExportFile } from '../change-log.ts';
import { manifestEntries, parseShardManifest, SHARD_MANIFEST_PATH } from './shard-manifest.ts';
import { ensureMirrorBuild, isMirrorDir, MirrorUrlError, readMirrorStamp, writeMirrorStamp, type MirrorStamp } from './mirror-build.ts';

export interface MirrorOptions {
  baseUrl: string;
  dir: string;
  /** Files fetched at once. */
  concurrency?: number;
  /** Extra attempts for a file whose download fails or does not match its checksum. */
  retries?: number;
  signal?: AbortSignal;
  /** The mirror's own public URL, in every absolute URL of its build (pages, llms.txt, feeds, shards). */
  publicUrl: string;
  /** Build the mirror's site at the end, so `serve` starts at once (default true). */
  build?: boolean;
  /** The operator's embedding model for that build (Config.embeddingModelDir); unset: the distilled encoder. */
  embeddingModelDir?: string | undefined;
  /** Build logs (stage timings) instead of a quiet build. */
  verbose?: boolean;
  onProgress?: (done: number, total: number) => void;
  /** After each file is in place and verified. */
  onFile?: (path: string, outcome: 'kept' | 'fetched') => void;
}

export interface MirrorReport {
  origin: string;
  dir: string;
  snapshotHash: string;
  listings: number;
  /** Files the manifest lists. */
  files: number;
  /** Already in place and verified (a resumed mirror). */
  kept: number;
  fetched: number;
  /** Local files that were present but failed verification, and were fetched again. */
  repaired: number;
  bytesFetched: number;
  /** Files of an earlier snapshot that the manifest no longer lists. */
  removed: number;
  /** Times the origin's rate limit made the mirror wait (429 with Retry-After). */
  rateLimited: number;
  /** Records the export was patched with from the origin's change log, instead of fetching it whole (-1: not patched). */
  patchedRecords: number;
  /** Whether this run built the mirror's site (false: its current build already came from these shards and URL). */
  built: boolean;
  /** Why the site was not built although asked to: the public URL is the origin's own address (`serve` builds it). */
  notBuilt?: string;
}

export type MirrorFailure = 'http' | 'checksum' | 'manifest';

export class MirrorError extends Error {
  readonly kind: MirrorFailure;
  /** Seconds the origin asked to wait (429 or 503 with Retry-After). */
  readonly retryAfter: number | undefined;
  constructor(kind: MirrorFailure, message: string, retryAfter?: number) {
    super(message);
    this.name = 'MirrorError';
    this.kind = kind;
    this.retryAfter = retryAfter;
  }
}

/** The longest Retry-After a mirror waits out; an origin asking for more fails the file like any other error. */
const MAX_RETRY_AFTER_SECONDS = 120;
/** Waits for the origin's rate limit that one file may sit through before the mirror gives up. */
const MAX_WAITS_PER_FILE = 20;

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });

/**
 * The largest change log a mirror patches its export with: the log is parsed whole (its records are what the
 * export is patched with), so one larger than this, a change of most of a large catalog, is not worth it: the
 * export is fetched instead, streamed like every other file.
 */
export const PATCH_MAX_LOG_BYTES = 64 * 2 ** 20;

const sha256 = (body: Uint8Array) => createHash('sha256').update(body).digest('hex');

/** A file's size and SHA-256, read as a stream: the export of a large catalog is past what one buffer or string holds. */
async function fileDigest(file: string): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(file)) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { bytes, sha256: hash.digest('hex') };
}

async function verified(file: string, entry: ShardEntry): Promise<'ok' | 'missing' | 'bad'> {
  if (!existsSync(file)) return 'missing';
  // The size first: a file of another length is bad without reading it.
  if (statSync(file).size !== entry.bytes) return 'bad';
  const { sha256: digest } = await fileDigest(file);
  return digest === entry.sha256 ? 'ok' : 'bad';
}

/** The origin's answer to a GET, once it is 200: its body not read yet. */
async function request(url: string, signal: AbortSignal | undefined): Promise<Response> {
  let response: Response;
  try {
    // Identity encoding: the checksums are of the files' bytes, whatever the origin could compress them to.
    response = await fetch(url, { signal, headers: { 'Accept-Encoding': 'identity' } });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new MirrorError('http', `GET ${url} failed: ${(error as Error).message}`);
  }
  if (!response.ok) {
    await response.body?.cancel();
    // The origin's rate limit (SERVICE.md: 429 with Retry-After) is a pause, not a failure.
    const retryAfter = Number(response.headers.get('retry-after'));
    const wait = (response.status === 429 || response.status === 503) && Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : undefined;
    throw new MirrorError('http', `GET ${url} answered ${response.status}`, wait);
  }
  return response;
}

/**
 * Streams an answer's body to `file`, under a temporary name renamed into place only when its size and SHA-256 are
 * the manifest's: never held whole. A broken connection is a fetch failure, a wrong body a checksum failure.
 */
async function saveVerified(response: Response, url: string, file: string, entry: ShardEntry): Promise<void> {
  mkdirSync(dirname(file), { recursive: true });
  const temp = `${file}.part-${process.pid}`;
  const out = createWriteStream(temp);
  const hash = createHash('sha256');
  let bytes = 0;
  try {
    try {
      const reader = response.body?.getReader();
      for (let read = await reader?.read(); read && !read.done; read = await reader!.read()) {
        const chunk = read.value;
        hash.update(chunk);
        bytes += chunk.length;
        if (!out.write(chunk)) await once(out, 'drain');
      }
    } catch (error) {
      throw new MirrorError('http', `GET ${url} failed while reading: ${(error as Error).message}`);
    } finally {
      out.end();
      await once(out, 'close');
    }
    if (bytes !== entry.bytes || hash.digest('hex') !== entry.sha256) {
      throw new MirrorError('checksum', `${entry.path}: the fetched file does not match the manifest's SHA-256 (${entry.sha256})`);
    }
    renameSync(temp, file);
  } finally {
    rmSync(temp, { force: true });
  }
}

function writeAtomically(file: string, body: Uint8Array | string): void {
  mkdirSync(dirname(file), { recursive: true });
  const temp = `${file}.part-${process.pid}`;
  writeFileSync(temp, body);
  renameSync(temp, file);
}

function listFiles(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/** The manifest of the snapshot a mirror already holds, when it has a readable one. */
function readLocalManifest(file: string): ShardManifest | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return parseShardManifest(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

export async function mirror(options: MirrorOptions): Promise<MirrorReport> {
  const origin = options.baseUrl.replace(/\/+$/, '');
  const siteDir = join(options.dir, 'site');
  const retries = options.retries ?? 2;
  // One failure stops every worker before mirror() settles, so nothing is written after it returned.
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;

  let rateLimited = 0;
  /** A request that waits out the origin's rate limit (Retry-After) instead of failing on it. */
  const patient = async (url: string): Promise<Response> => {
    for (let waits = 0; ; waits++) {
      try {
        return await request(url, signal);
      } catch (error) {
        const after = error instanceof MirrorError ? error.retryAfter : undefined;
        if (after === undefined || after > MAX_RETRY_AFTER_SECONDS || waits >= MAX_WAITS_PER_FILE) throw error;
        rateLimited++;
        await sleep(Math.max(1, after) * 1000, signal);
      }
    }
  };

  // The manifest (a few entries a thousand listings) and a small change log are read whole; every other file streams.
  const whole = async (url: string) => Buffer.from(await (await patient(url)).arrayBuffer());
  const manifestText = (await whole(origin + SHARD_MANIFEST_PATH)).toString('utf8');
  let manifest;
  try {
    manifest = parseShardManifest(manifestText);
  } catch (error) {
    throw new MirrorError('manifest', `${origin}${SHARD_MANIFEST_PATH}: ${(error as Error).message}`);
  }
  const entries = manifestEntries(manifest);
  const report: MirrorReport = {
    origin,
    dir: options.dir,
    snapshotHash: manifest.snapshotHash,
    listings: manifest.count,
    files: entries.length,
    kept: 0,
    fetched: 0,
    repaired: 0,
    bytesFetched: 0,
    removed: 0,
    rateLimited: 0,
    patchedRecords: -1,
    built: false,
  };

  // A mirror holding the snapshot the origin's change log starts from patches its export instead of fetching it.
  const held = readLocalManifest(join(siteDir, SHARD_MANIFEST_PATH));
  if (held && manifest.changes.from === held.snapshotHash && manifest.export.sha256 !== held.export.sha256 && manifest.changes.bytes <= PATCH_MAX_LOG_BYTES) {
    const exportFile = join(siteDir, manifest.export.path);
    if ((await verified(exportFile, held.export)) === 'ok') {
      const body = await whole(origin + manifest.changes.path);
      if (body.length === manifest.changes.bytes && sha256(body) === manifest.changes.sha256) {
        writeAtomically(join(siteDir, manifest.changes.path), body);
        const log = ChangeLogSchema.safeParse(JSON.parse(body.toString('utf8')));
        const temp = `${exportFile}.patch-${process.pid}`;
        try {
          // Only a patch that yields exactly the origin's new export (its SHA-256) replaces fetching it.
          if (log.success && (await patchExportFile(exportFile, held.snapshotHash, log.data, temp))) {
            const patched = await fileDigest(temp);
            if (patched.bytes === manifest.export.bytes && patched.sha256 === manifest.export.sha256) {
              renameSync(temp, exportFile);
              report.patchedRecords = log.data.records.length;
              report.bytesFetched += body.length;
            }
          }
        } finally {
          rmSync(temp, { force: true });
        }
      }
    }
  }

  let next = 0;
  let done = 0;
  options.onProgress?.(0, entries.length);
  const fetchOne = async (entry: ShardEntry) => {
    const file = join(siteDir, entry.path);
    const state = await verified(file, entry);
    if (state === 'ok') {
      report.kept++;
      options.onFile?.(entry.path, 'kept');
      return;
    }
    for (let attempt = 0; ; attempt++) {
      signal.throwIfAborted();
      try {
        const url = origin + entry.path;
        await saveVerified(await patient(url), url, file, entry);
        report.fetched++;
        report.bytesFetched += entry.bytes;
        if (state === 'bad') report.repaired++;
        options.onFile?.(entry.path, 'fetched');
        return;
      } catch (error) {
        if (signal.aborted || !(error instanceof MirrorError) || attempt >= retries) throw error;
      }
    }
  };
  let failure: unknown;
  const worker = async () => {
    try {
      while (next < entries.length) {
        signal.throwIfAborted();
        const entry = entries[next++]!;
        await fetchOne(entry);
        options.onProgress?.(++done, entries.length);
      }
    } catch (error) {
      failure ??= error;
      stop.abort(error);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 6) }, worker));
  if (failure !== undefined) throw failure;

  // Files of an earlier snapshot (and temp files of an interrupted run) would be served as if current.
  const wanted = new Set(entries.map((entry) => join(siteDir, entry.path)));
  wanted.add(join(siteDir, SHARD_MANIFEST_PATH));
  for (const file of listFiles(join(siteDir, 'shards'))) {
    if (wanted.has(file)) continue;
    rmSync(file, { force: true });
    if (!basename(file).includes('.part-')) report.removed++;
  }
  report.rateLimited = rateLimited;
  writeAtomically(join(siteDir, SHARD_MANIFEST_PATH), manifestText);
  let previous: MirrorStamp | undefined;
  try {
    previous = isMirrorDir(options.dir) ? readMirrorStamp(options.dir) : undefined;
  } catch {
    // A damaged stamp only loses what the last build was made from: the build below runs again.
  }
  const stamp: MirrorStamp = {
    origin,
    mirroredAt: new Date().toISOString(),
    snapshotHash: manifest.snapshotHash,
    ...(previous?.built ? { built: previous.built } : {}),
  };
  writeMirrorStamp(options.dir, stamp);

  if (options.build ?? true) {
    try {
      report.built = (
        await ensureMirrorBuild(options.dir, { publicUrl: options.publicUrl, embeddingModelDir: options.embeddingModelDir, quiet: !options.verbose })
      ).built;
    } catch (error) {
      // The shards are fetched and verified; only the build waits for an address of the mirror's own.
      if (!(error instanceof MirrorUrlError)) throw error;
      report.notBuilt = error.message;
    }
  }
  return report;
}
