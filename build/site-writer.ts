// The one writer of generated static files: refuses paths outside the site directory, writes brotli and
// gzip variants next to each compressible file, and records content types that a file name cannot carry
// (e.g. /.well-known/api-catalog) in content-types.json for the shim's static handler, with the media types a
// file is also offered as (negotiation.json, chosen by Accept) and extra response headers (headers.json).
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  createReadStream,
  createWriteStream,
  existsSync,
  linkSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { copyFile, link, mkdir } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { brotliCompressSync, constants, createBrotliCompress, createGzip, gzipSync } from 'node:zlib';
import { pathInside } from './path-inside.ts';
import type { StageContext } from './stages/stage.ts';
import { MANIFEST_FILES, type ContentTypesManifest, type HeadersManifest, type NegotiationManifest } from '../src/domain/contract/static-serving.ts';

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
/** Smaller files are served as they are: the encoding would cost more than it saves. */
export const COMPRESS_MIN_BYTES = 512;

/** Brotli and gzip settings by size: small files get the strongest, large ones a faster level (brotli 11 costs many times level 6). */
function compression(bytes: number): { brotliQuality: number; gzipLevel: number } {
  return bytes > 64 * 1024 ? { brotliQuality: 6, gzipLevel: 6 } : { brotliQuality: 11, gzipLevel: 9 };
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
 * A file of the build being replaced, with its .br and .gz where it has them, hard-linked (or copied) into the new
 * build: the same bytes without writing or compressing them again. The build it comes from is only read; a later
 * write to the same path replaces the link (SiteWriter.write), never writes through it.
 */
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

/** carryFile for a writer called in a loop that does not wait (SiteWriter.write). */
function carryFileSync(from: string, to: string): void {
  for (const suffix of VARIANTS) {
    try {
      linkSync(from + suffix, to + suffix);
    } catch (error) {
      if (afterFailedLink(error, suffix) === 'copy') copyFileSync(from + suffix, to + suffix);
    }
  }
}

/**
 * The site of the build being replaced when its files are what this build would write for the same bytes: made by the
 * same code (the render fingerprint it recorded in build.json) and not bypassed (--force). Undefined otherwise.
 */
export function reusableSite(ctx: Pick<StageContext, 'previousBuild' | 'renderFingerprint'>): string | undefined {
  if (ctx.previousBuild === undefined || ctx.renderFingerprint === undefined) return undefined;
  const recorded = join(ctx.previousBuild, 'build.json');
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
  private readonly contentTypes: ContentTypesManifest;
  private readonly negotiation: NegotiationManifest;
  private readonly headers: HeadersManifest;

  /** Names at the top of the site that hold the site stage's pages (StageContext.pageEntries): written by no one else. */
  private readonly pageEntries: ReadonlySet<string>;
  /**
   * The site of the build being replaced, when it was made by the same code (so its .br and .gz are what `write`
   * would make of the same bytes): a file written with the bytes it holds there is linked from it, not compressed
   * again. Files written through `adopt` are always new.
   */
  private readonly previous: string | undefined;
  /** Files linked from the previous build instead of written. */
  carried = 0;

  constructor(root: string, options: { pageEntries?: ReadonlySet<string> | undefined; previous?: string | undefined } = {}) {
    this.root = root;
    this.pageEntries = options.pageEntries ?? new Set();
    this.previous = options.previous;
    mkdirSync(root, { recursive: true });
    const existing = (name: string) => (existsSync(join(root, name)) ? JSON.parse(readFileSync(join(root, name), 'utf8')) : {});
    this.contentTypes = existing(MANIFEST_FILES.contentTypes);
    this.negotiation = existing(MANIFEST_FILES.negotiation);
    this.headers = existing(MANIFEST_FILES.headers);
  }

  /**
   * `path` relative to the root; refuses one under a name that holds the pages: a first start serves those while the
   * stages that write through this run (a half-written file there would be served).
   */
  private relative(path: string): string {
    const relative = pathInside(path, 'site');
    const top = relative.split(sep, 1)[0]!;
    if (this.pageEntries.has(top))
      throw new Error(
        `refusing to write ${path}: /${top} holds the site's pages, which a first start serves while this is written; write it under another name`,
      );
    return relative;
  }

  write(file: GeneratedFile, options: { compress?: boolean } = {}): void {
    const relative = this.relative(file.path);
    const full = join(this.root, relative);
    mkdirSync(dirname(full), { recursive: true });
    const body = typeof file.body === 'string' ? Buffer.from(file.body) : file.body;
    // A page carried over from the previous build (site-stage.ts) is a hard link to that build's file: a new file
    // in its place, never a write through the link, leaves that build as it was.
    for (const suffix of VARIANTS) rmSync(full + suffix, { force: true });
    if (this.previous !== undefined && this.sameAsPrevious(relative, body)) {
      carryFileSync(join(this.previous, relative), full);
      this.carried++;
      this.record(file, relative);
      return;
    }
    writeFileSync(full, body);
    if ((options.compress ?? true) && body.length >= COMPRESS_MIN_BYTES) {
      const { brotliQuality, gzipLevel } = compression(body.length);
      writeFileSync(
        `${full}.br`,
        brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: brotliQuality, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } }),
      );
      writeFileSync(`${full}.gz`, gzipSync(body, { level: gzipLevel }));
    }
    this.record(file, relative);
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
  private sameAsPrevious(relative: string, body: Buffer): boolean {
    const previous = join(this.previous!, relative);
    return existsSync(previous) && statSync(previous).size === body.length && readFileSync(previous).equals(body);
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

  /** Persists the content-type overrides, the negotiated alternates and the extra headers; call once after the last write. */
  finish(): void {
    writeFileSync(join(this.root, MANIFEST_FILES.contentTypes), JSON.stringify(this.contentTypes, null, 1));
    writeFileSync(join(this.root, MANIFEST_FILES.negotiation), JSON.stringify(this.negotiation, null, 1));
    writeFileSync(join(this.root, MANIFEST_FILES.headers), JSON.stringify(this.headers, null, 1));
  }
}
