// The one writer of generated static files: refuses paths outside the site directory, writes brotli and
// gzip variants next to each compressible file, and records content types that a file name cannot carry
// (e.g. /.well-known/api-catalog) in content-types.json for the shim's static handler, with the media types a
// file is also offered as (negotiation.json, chosen by Accept) and extra response headers (headers.json).
import { createHash } from 'node:crypto';
import { copyFileSync, createReadStream, createWriteStream, existsSync, linkSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { copyFile, link, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { brotliCompress, constants, createBrotliCompress, createGzip, gzip } from 'node:zlib';
import { COMPRESS_MIN_BYTES } from './page-compression.ts';
import { pathInside } from './path-inside.ts';
import { SiteTops } from './site-tops.ts';
import type { StageContext } from './stages/stage.ts';
import { MANIFEST_FILES, type ContentTypesManifest, type HeadersManifest, type NegotiationManifest } from '../src/domain/contract/static-serving.ts';
import { BUILD_RECORD_FILE } from '../src/artifacts/build-dirs.ts';

export interface GeneratedFile {
  /** Site path, e.g. /openapi.json or /.well-known/api-catalog. */
  path: string;
  contentType: string;
  body: string | Buffer;
  /** Other media types of the same resource, chosen by the request's Accept; `contentType` stays the default. */
  alternates?: Array<{ contentType: string; /** Site path of a different body for this type; default: this file. */ path?: string }>;
  /** Response headers the file is always served with (e.g. the Link header RFC 9727 asks of the API catalog). */
  headers?: Record<string, string>;
}

const IMPLIED: Record<string, string> = {
  '.html': 'text/html',
  '.json': 'application/json',
  '.txt': 'text/plain',
  '.md': 'text/markdown',
  '.xml': 'application/xml',
  '.yaml': 'application/yaml',
  '.css': 'text/css',
  '.js': 'text/javascript',
};

/**
 * Files larger than this get LARGE_FILE_COMPRESSION, smaller ones the strongest levels (brotli 11 costs many times
 * the large files' level, which on a small file is no matter).
 */
export const LARGE_FILE_BYTES = 64 * 1024;
/**
 * The shard pages, the export and the sitemaps: written again by nearly every build, and they grow with the catalog.
 * Brotli 5, as the site's pages (docs/decisions/015-large-file-brotli.md).
 */
export const LARGE_FILE_COMPRESSION = { brotliQuality: 5, gzipLevel: 6 } as const;

function compression(bytes: number): { brotliQuality: number; gzipLevel: number } {
  return bytes > LARGE_FILE_BYTES ? LARGE_FILE_COMPRESSION : { brotliQuality: 11, gzipLevel: 9 };
}

/** The suffixes of a generated file's own file and its precompressed variants (a small file has none). */
const VARIANTS = ['', '.br', '.gz'];
/** Errors of a hard link that a copy avoids: another file system, or one without hard links (or too many to one file). */
const NO_LINK = new Set(['EXDEV', 'EPERM', 'EMLINK', 'ENOTSUP']);

/** What a failed link of `suffix` calls for: nothing (a variant the file does not have), a copy, or the error. */
function afterFailedLink(error: unknown, suffix: string): 'skip' | 'copy' {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' && suffix) return 'skip';
  if (code && NO_LINK.has(code)) return 'copy';
  throw error;
}

/**
 * A file of the build being replaced, with its .br and .gz where it has them (`suffixes`: the file's own and its
 * variants; a variant it lacks is skipped), hard-linked (or copied) into the new build: the same bytes without writing
 * or compressing them again. The build it comes from is only read; a later write to the same path replaces the link
 * (SiteWriter.write), never writes through it.
 */
export function carryFileSync(from: string, to: string, suffixes: readonly string[] = VARIANTS): void {
  for (const suffix of suffixes) {
    try {
      linkSync(from + suffix, to + suffix);
    } catch (error) {
      if (afterFailedLink(error, suffix) === 'copy') copyFileSync(from + suffix, to + suffix);
    }
  }
}

/** carryFileSync's asynchronous twin, for a writer that does not hold the thread: it makes the folder first. */
export async function carryFile(from: string, to: string): Promise<void> {
  await mkdir(dirname(to), { recursive: true });
  for (const suffix of VARIANTS) {
    try {
      await link(from + suffix, to + suffix);
    } catch (error) {
      if (afterFailedLink(error, suffix) === 'copy') await copyFile(from + suffix, to + suffix);
    }
  }
}

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/**
 * Files a SiteWriter writes at once: their bodies are held and compressed on libuv's thread pool (4 threads by
 * default) while the caller goes on; a caller that awaits each `write` holds no more than this many.
 */
export const WRITES_IN_FLIGHT = 16;

/** Keys in code-unit order: the manifests are the same bytes whichever stage finished first. */
const sortedKeys = <T>(record: Record<string, T>): Record<string, T> =>
  Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/**
 * The site of the build being replaced when its files are what this build would write for the same bytes: made by the
 * same code (the render fingerprint it recorded in build.json) and not bypassed (--force). Undefined otherwise.
 */
export function reusableSite(ctx: Pick<StageContext, 'previousBuild' | 'renderFingerprint'>): string | undefined {
  if (ctx.previousBuild === undefined || ctx.renderFingerprint === undefined) return undefined;
  const recorded = join(ctx.previousBuild, BUILD_RECORD_FILE);
  if (!existsSync(recorded)) return undefined;
  try {
    const build = JSON.parse(readFileSync(recorded, 'utf8')) as { renderFingerprint?: unknown };
    return build.renderFingerprint === ctx.renderFingerprint ? join(ctx.previousBuild, 'site') : undefined;
  } catch {
    return undefined;
  }
}

/** What SiteWriter.adopt records of a file it took in: enough for a manifest entry. */
export interface AdoptedFile {
  bytes: number;
  sha256: string;
}

export class SiteWriter {
  readonly root: string;
  private readonly contentTypes: ContentTypesManifest = {};
  private readonly negotiation: NegotiationManifest = {};
  private readonly headers: HeadersManifest = {};

  /**
   * Which side writes under each name at the top of the site (site-tops.ts), shared with the site stage when it runs
   * beside this writer: a name that holds the pages is written by no one else.
   */
  private readonly tops: SiteTops;
  /**
   * The site of the build being replaced, when it was made by the same code (so its .br and .gz are what `write`
   * would make of the same bytes): a file written with the bytes it holds there is linked from it, not compressed
   * again. Files written through `adopt` are always new.
   */
  private readonly previous: string | undefined;
  /** Files linked from the previous build instead of written. */
  carried = 0;
  /** Writes under way (see WRITES_IN_FLIGHT), and the one per path, so that a second write to a path waits for the first. */
  private readonly inFlight = new Set<Promise<void>>();
  private readonly byPath = new Map<string, Promise<void>>();
  /** The first write that failed: thrown by the next `write` and by `finish`. */
  private failure: { error: unknown } | undefined;

  constructor(root: string, options: { tops?: SiteTops | undefined; pageEntries?: Iterable<string> | undefined; previous?: string | undefined } = {}) {
    this.root = root;
    this.tops = options.tops ?? new SiteTops();
    for (const entry of options.pageEntries ?? []) this.tops.claim(entry, 'pages');
    // finish() writes them at the top of the site.
    for (const name of Object.values(MANIFEST_FILES)) this.tops.claim(name, 'files');
    this.previous = options.previous;
    mkdirSync(root, { recursive: true });
  }

  /**
   * `path` relative to the root; refuses one under a name that holds the pages: a first start serves those while the
   * stages that write through this run (a half-written file there would be served).
   */
  private relative(path: string): string {
    const relative = pathInside(path, 'site');
    this.tops.claim(relative.split(sep, 1)[0]!, 'files', path);
    return relative;
  }

  /**
   * Writes `file` with its .br and .gz, compressed on libuv's thread pool, or links it from the previous build when
   * that holds the same bytes. Resolves once fewer than WRITES_IN_FLIGHT writes are under way, not when this one is
   * done: `finish` waits for them all. A failed write is thrown by the next call or by `finish`.
   */
  async write(file: GeneratedFile, options: { compress?: boolean } = {}): Promise<void> {
    this.throwFailure();
    const relative = this.relative(file.path);
    const body = typeof file.body === 'string' ? Buffer.from(file.body) : file.body;
    const before = this.byPath.get(relative);
    const job = (before ? before.then(() => this.put(relative, body, options.compress ?? true)) : this.put(relative, body, options.compress ?? true)).catch(
      (error: unknown) => {
        this.failure ??= { error };
      },
    );
    const done = job.finally(() => {
      this.inFlight.delete(done);
      if (this.byPath.get(relative) === done) this.byPath.delete(relative);
    });
    this.inFlight.add(done);
    this.byPath.set(relative, done);
    this.record(file, relative);
    while (this.inFlight.size >= WRITES_IN_FLIGHT) await Promise.race(this.inFlight);
    this.throwFailure();
  }

  private throwFailure(): void {
    if (this.failure) throw this.failure.error;
  }

  private async put(relative: string, body: Buffer, compress: boolean): Promise<void> {
    const full = join(this.root, relative);
    await mkdir(dirname(full), { recursive: true });
    // A page carried over from the previous build (site-stage.ts) is a hard link to that build's file: a new file
    // in its place, never a write through the link, leaves that build as it was.
    await Promise.all(VARIANTS.map((suffix) => rm(full + suffix, { force: true })));
    if (this.previous !== undefined && (await this.sameAsPrevious(relative, body))) {
      await carryFile(join(this.previous, relative), full);
      this.carried++;
      return;
    }
    if (compress && body.length >= COMPRESS_MIN_BYTES) {
      const { brotliQuality, gzipLevel } = compression(body.length);
      const [br, gz] = await Promise.all([
        brotliAsync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: brotliQuality, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } }),
        gzipAsync(body, { level: gzipLevel }),
      ]);
      // The variants before the file: a file that is there has them.
      await Promise.all([writeFile(`${full}.br`, br), writeFile(`${full}.gz`, gz)]);
    }
    await writeFile(full, body);
  }

  /**
   * Takes in a file already written elsewhere in the build directory (same file system: a rename), as `write` would
   * have written its body, for files too large to hold: the export, the change log, the shard manifest. Its digest
   * and its .br and .gz are made by streaming it; the brotli and gzip encoders run at once on libuv's threads.
   */
  async adopt(file: Omit<GeneratedFile, 'body'>, source: string): Promise<AdoptedFile> {
    const relative = this.relative(file.path);
    const full = join(this.root, relative);
    mkdirSync(dirname(full), { recursive: true });
    renameSync(source, full);
    const bytes = statSync(full).size;
    const hash = createHash('sha256');
    const work: Array<Promise<unknown>> = [pipeline(createReadStream(full), hash)];
    if (bytes >= COMPRESS_MIN_BYTES) {
      const { brotliQuality, gzipLevel } = compression(bytes);
      work.push(
        pipeline(
          createReadStream(full),
          createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: brotliQuality, [constants.BROTLI_PARAM_SIZE_HINT]: Math.min(bytes, 2 ** 30) } }),
          createWriteStream(`${full}.br`),
        ),
        pipeline(createReadStream(full), createGzip({ level: gzipLevel }), createWriteStream(`${full}.gz`)),
      );
    }
    await Promise.all(work);
    this.record(file, relative);
    return { bytes, sha256: hash.digest('hex') };
  }

  /** Whether the previous build's file at `relative` holds `body`; its size first, so a changed file is rarely read. */
  private async sameAsPrevious(relative: string, body: Buffer): Promise<boolean> {
    const previous = join(this.previous!, relative);
    const found = await stat(previous).catch(() => undefined);
    return found !== undefined && found.size === body.length && (await readFile(previous)).equals(body);
  }

  private record(file: Omit<GeneratedFile, 'body'>, relative: string): void {
    const ext = relative.includes('.') ? relative.slice(relative.lastIndexOf('.')) : '';
    const base = file.contentType.split(';')[0]!.trim();
    const sitePath = '/' + relative.split(sep).join('/');
    if (IMPLIED[ext] !== base) this.contentTypes[sitePath] = file.contentType;
    if (file.alternates?.length) {
      this.negotiation[sitePath] = [
        { type: file.contentType, file: sitePath },
        ...file.alternates.map((alternate) => ({ type: alternate.contentType, file: alternate.path ?? sitePath })),
      ];
    }
    if (file.headers) this.headers[sitePath] = file.headers;
  }

  /** Waits for the writes under way, whatever their outcome: a stage that fails leaves nothing writing into the build. */
  async settle(): Promise<void> {
    await Promise.all(this.inFlight);
  }

  /**
   * Waits for the writes under way, then persists the content-type overrides, the negotiated alternates and the extra
   * headers, merged with what the other writers of the site recorded there; call once after the last write. The merge
   * is read and written in one synchronous step, so writers of stages that run side by side do not lose each other's.
   */
  async finish(): Promise<void> {
    await this.settle();
    this.throwFailure();
    const merge = (name: string, own: object) => {
      const path = join(this.root, name);
      const existing = existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>) : {};
      writeFileSync(path, JSON.stringify(sortedKeys({ ...existing, ...own }), null, 1));
    };
    merge(MANIFEST_FILES.contentTypes, this.contentTypes);
    merge(MANIFEST_FILES.negotiation, this.negotiation);
    merge(MANIFEST_FILES.headers, this.headers);
  }
}
