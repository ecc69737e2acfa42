// Serves the built static output: path → file (also dir/index.html, path.html, path/ → path.html), the precompressed .br/.gz
// sibling when the client accepts it, strong ETags, and Cache-Control by kind of asset. Content types for files
// without an extension (e.g. /.well-known/api-catalog) come from the build's content-types.json.
//
// A build never changes once it is served (a rebuild is a new directory and a new StaticFiles), so each path is
// resolved once: its files are stat'ed and its response headers prepared on first request, and small files are
// kept in memory (bounded by bytes). A repeated request costs a map lookup and one write; a conditional one is
// answered from the prepared validator without touching the disk.
//
// The one exception: a first start serves its build's pages while the build still writes the rest of the site
// (`complete`). Then only the names at the top of the site that are complete are served, each file as it is (its
// .br/.gz may be half written), and every other path answers 503 until the finished build replaces this one.
import { existsSync, readFileSync, statSync, type Stats } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { LRUCache } from 'lru-cache';
import {
  CONTENT_TYPES,
  DEFAULT_CONTENT_TYPE,
  MANIFEST_FILES,
  PRECOMPRESSED,
  SERVER_MANIFESTS,
  cacheControlFor,
  type ContentTypesManifest,
  type HeadersManifest,
  type NegotiationManifest,
} from '../../src/domain/contract/static-serving.ts';
import { LISTING_PAGE_PATH } from '../../src/domain/site-paths.ts';
import { negotiateMediaType } from './media-types.ts';
import type { Reply } from './handler.ts';
import { siteCompletingReply } from './site-building.ts';

/** What serving a file reads of a request. */
export interface FileRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
}

export interface StaticFiles {
  /** The file's reply (or a 304, or headers only for HEAD); undefined when nothing is there. */
  reply(request: FileRequest): Promise<Reply | undefined>;
  /** The served bytes of a file, for routes that negotiate between prebuilt variants. */
  has(path: string): boolean;
  /** Whether serve() would find a file at this URL path (for the Allow header of a 405). */
  exists(path: string): Promise<boolean>;
}

export interface StaticFilesOptions {
  /**
   * Bytes of file content kept in memory across all files (the default holds the pages most asked for; the rest are
   * a read from the page cache away, and the shim's memory goes to the listings and indexes first).
   */
  maxCachedBytes?: number;
  /** Larger files are streamed from disk on every request. */
  maxCachedFileBytes?: number;
  /** Request paths whose resolution (found or not) is remembered (default 50,000). */
  maxPaths?: number;
  /**
   * The names at the top of the site that are complete, while a first start's build writes the rest: only files
   * under them are served, without compressed copies; any other path answers 503. Unset: the site is complete.
   */
  complete?: ReadonlySet<string> | undefined;
}

/** One encoding of one representation: its file, prepared headers and (when small) its bytes. */
interface Encoded {
  file: string;
  size: number;
  etag: string;
  headers: OutgoingHttpHeaders;
}

/** One representation (media type) of a resolved path, by content coding. */
interface Representation {
  identity: Encoded;
  br?: Encoded;
  gzip?: Encoded;
}

interface Resolved {
  /** Default first; more than one only for negotiated files. */
  representations: Representation[];
  types: string[];
}

const ACCEPTS_BR = /\bbr\b/;
const ACCEPTS_GZIP = /\bgzip\b/;

/** A file that is not there (or no longer a file where a folder was): the path resolves differently now. */
function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR';
}

function fileStats(path: string): Stats | undefined {
  try {
    const stats = statSync(path);
    return stats.isFile() ? stats : undefined;
  } catch {
    return undefined;
  }
}

interface Located {
  file: string;
  stats: Stats;
  logical: string;
}

/** A URL path as a path relative to the site's root; undefined when it cannot name a file of it. */
function relativePath(path: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0')) return undefined;
  const relative = normalize(decoded).replace(/^([/\\])+/, '');
  return relative.split(sep).includes('..') ? undefined : relative;
}

/** The name at the top of the site that a relative path (either separator) is under. */
const topName = (relative: string): string => relative.split(/[\\/]/, 1)[0]!;

/**
 * The file a URL path names in the build (as is, dir/index.html, path.html, and for path/ also path.html: a listing's
 * page is one file, listings/<slug>.html, served at /listings/<slug>/); undefined outside it or missing.
 */
function locate(root: string, path: string): Located | undefined {
  const relative = relativePath(path);
  if (relative === undefined || SERVER_MANIFESTS.has(relative)) return undefined;
  const base = join(root, relative);
  if (!base.startsWith(root)) return undefined;
  const page = base.endsWith(sep) ? base.slice(0, -1) : base;
  const candidates = page.length > root.length ? [base, join(base, 'index.html'), `${page}.html`] : [base, join(base, 'index.html')];
  for (const candidate of candidates) {
    const stats = fileStats(candidate);
    if (stats)
      return {
        file: candidate,
        stats,
        logical:
          '/' +
          candidate
            .slice(root.length + 1)
            .split(sep)
            .join('/'),
      };
  }
  return undefined;
}

/** The representation's encoding (br, gzip, identity) the request accepts, of the media type it prefers. */
function choose(request: FileRequest, resolved: Resolved): Encoded {
  const representation =
    resolved.representations.length > 1 ? resolved.representations[negotiateMediaType(request.headers.accept, resolved.types)]! : resolved.representations[0]!;
  const acceptEncoding = request.headers['accept-encoding'];
  if (acceptEncoding) {
    if (representation.br && ACCEPTS_BR.test(acceptEncoding)) return representation.br;
    if (representation.gzip && ACCEPTS_GZIP.test(acceptEncoding)) return representation.gzip;
  }
  return representation.identity;
}

function readManifest<T>(root: string, name: string): T {
  return (existsSync(join(root, name)) ? JSON.parse(readFileSync(join(root, name), 'utf8')) : {}) as T;
}

class BuildFiles implements StaticFiles {
  private readonly root: string;
  private readonly maxCachedFileBytes: number;
  private readonly overrides: ContentTypesManifest;
  private readonly negotiation: NegotiationManifest;
  private readonly extraHeaders: HeadersManifest;
  /** Request path → what it resolves to (none: nothing), remembered for the life of this build. */
  private readonly paths: LRUCache<string, Resolved | { none: true }>;
  /** File contents by file path, bounded by bytes. */
  private readonly bytes: LRUCache<string, Buffer>;
  private readonly complete: ReadonlySet<string> | undefined;

  constructor(root: string, options: StaticFilesOptions) {
    this.root = root;
    this.complete = options.complete;
    this.maxCachedFileBytes = options.maxCachedFileBytes ?? 1024 * 1024;
    this.overrides = readManifest<ContentTypesManifest>(root, MANIFEST_FILES.contentTypes);
    this.negotiation = readManifest<NegotiationManifest>(root, MANIFEST_FILES.negotiation);
    this.extraHeaders = readManifest<HeadersManifest>(root, MANIFEST_FILES.headers);
    this.paths = new LRUCache({ max: options.maxPaths ?? 50_000 });
    this.bytes = new LRUCache({ maxSize: options.maxCachedBytes ?? 32 * 1024 * 1024, sizeCalculation: (buffer) => Math.max(1, buffer.length) });
  }

  has(path: string): boolean {
    if (this.complete && !this.complete.has(topName(relativePath(path) ?? ''))) return false;
    return existsSync(join(this.root, path));
  }

  async exists(path: string): Promise<boolean> {
    return this.resolve(path) !== undefined;
  }

  async reply(request: FileRequest): Promise<Reply | undefined> {
    const resolved = this.resolve(request.path);
    if (!resolved) {
      // While the site is being completed, a path outside its complete part may be a file still to be written.
      const relative = relativePath(request.path);
      if (this.complete && relative !== undefined && !this.complete.has(topName(relative))) return siteCompletingReply(request.headers);
      return undefined;
    }
    const answer = await this.send(request, choose(request, resolved));
    if (answer) return answer;
    // A file resolved earlier is gone (a disk fault, a page removed from the build): what was learned about the
    // path no longer holds. It is resolved once more from what is on disk now, so another encoding or form still
    // there is served, and nothing there is a 404 rather than an error.
    this.paths.delete(request.path);
    for (const representation of resolved.representations) {
      for (const encoded of [representation.identity, representation.br, representation.gzip]) if (encoded) this.bytes.delete(encoded.file);
    }
    const again = this.resolve(request.path);
    return again ? this.send(request, choose(request, again)) : undefined;
  }

  private prepare(found: Located, logical: string, type: string, variantTag: string, negotiated: boolean): Representation {
    const { file, stats } = found;
    const common: OutgoingHttpHeaders = {
      'Content-Type': type,
      Vary: negotiated ? 'Accept, Accept-Encoding' : 'Accept-Encoding',
      ...this.extraHeaders[logical],
      'Last-Modified': stats.mtime.toUTCString(),
      'Cache-Control': cacheControlFor(logical),
    };
    // A representation other than the default has its own validator (RFC 9110 §8.8.3).
    const tag = `${stats.size.toString(36)}-${Math.floor(stats.mtimeMs).toString(36)}${variantTag}`;
    const encoded = (path: string, size: number, encoding: string | undefined): Encoded => {
      const etag = `"${tag}${encoding ? `-${encoding}` : ''}"`;
      const headers: OutgoingHttpHeaders = { ...common, ETag: etag, 'Content-Length': size };
      if (encoding) headers['Content-Encoding'] = encoding;
      return { file: path, size, etag, headers };
    };
    const representation: Representation = { identity: encoded(file, stats.size, undefined) };
    // A site being completed may be writing a page's compressed copies now.
    if (this.complete) return representation;
    for (const { encoding, suffix } of PRECOMPRESSED) {
      const compressed = fileStats(file + suffix);
      if (compressed) representation[encoding] = encoded(file + suffix, compressed.size, encoding);
    }
    return representation;
  }

  private resolve(path: string): Resolved | undefined {
    const cached = this.paths.get(path);
    if (cached) return 'none' in cached ? undefined : cached;
    const found = locate(this.root, path);
    if (!found || (this.complete && !this.complete.has(topName(found.logical.slice(1))))) {
      this.paths.set(path, { none: true });
      return undefined;
    }
    const variants = this.negotiation[found.logical];
    let resolved: Resolved;
    if (variants && variants.length > 0) {
      const representations = variants.map((variant, index) => {
        const target = variant.file === found.logical ? found : (locate(this.root, variant.file) ?? found);
        return this.prepare(target, found.logical, variant.type, `-v${index}`, true);
      });
      resolved = { representations, types: variants.map((variant) => variant.type) };
    } else {
      const type = this.overrides[found.logical] ?? CONTENT_TYPES[extname(found.file)] ?? DEFAULT_CONTENT_TYPE;
      // A listing page's HTML is one of two answers by Accept (the other, Markdown, is the pipeline's).
      const byAccept = LISTING_PAGE_PATH.test(path);
      resolved = { representations: [this.prepare(found, found.logical, type, '', byAccept)], types: [type] };
    }
    this.paths.set(path, resolved);
    return resolved;
  }

  /** The chosen file's reply; undefined when its file is no longer there (see reply). */
  private async send(request: FileRequest, chosen: Encoded): Promise<Reply | undefined> {
    const inm = request.headers['if-none-match'];
    if (inm !== undefined && (inm === chosen.etag || inm.split(',').some((tag) => tag.trim().replace(/^W\//, '') === chosen.etag))) {
      const { 'Content-Length': _length, ...headers } = chosen.headers;
      return { status: 304, headers };
    }
    if (request.method === 'HEAD') return { status: 200, headers: chosen.headers };
    try {
      if (chosen.size <= this.maxCachedFileBytes) {
        let body = this.bytes.get(chosen.file);
        if (!body) {
          body = await readFile(chosen.file);
          this.bytes.set(chosen.file, body);
        }
        return { status: 200, headers: chosen.headers, body };
      }
      // Opened before the reply is made: a stream that fails to open would fail after the status line was sent.
      const handle = await open(chosen.file);
      return { status: 200, headers: chosen.headers, stream: handle.createReadStream() };
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }
}

export function createStaticFiles(root: string, options: StaticFilesOptions = {}): StaticFiles {
  return new BuildFiles(root, options);
}

/**
 * The static files of a first start's build, served while it is still being made (server/first-build.ts): none at
 * first (the pipeline answers that the site is being built), then its pages (pagesReady: the names at the top of the
 * site that are complete), then the whole site once the build has ended (finished). Each step is a new set of
 * files, as a rebuild is, so nothing learned of a path while the site was incomplete outlives the step.
 */
export class GrowingStaticFiles implements StaticFiles {
  private readonly root: string;
  private readonly options: StaticFilesOptions;
  private files: StaticFiles | undefined;
  private done = false;

  constructor(root: string, options: StaticFilesOptions = {}) {
    this.root = root;
    this.options = options;
  }

  /** Every page is in the site: the files under `entries` (names at its top) are served; anything else answers 503. */
  pagesReady(entries: Iterable<string>): void {
    if (!this.done) this.files = new BuildFiles(this.root, { ...this.options, complete: new Set(entries) });
  }

  /** The build has ended: the whole site is served, as a finished build's. */
  finished(): void {
    this.done = true;
    this.files = new BuildFiles(this.root, this.options);
  }

  reply(request: FileRequest): Promise<Reply | undefined> {
    return this.files ? this.files.reply(request) : Promise.resolve(undefined);
  }

  has(path: string): boolean {
    return this.files?.has(path) ?? false;
  }

  exists(path: string): Promise<boolean> {
    return this.files ? this.files.exists(path) : Promise.resolve(false);
  }
}
