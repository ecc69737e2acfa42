// Serves the built static output: path → file (also dir/index.html, path.html), the precompressed .br/.gz
// sibling when the client accepts it, strong ETags, and Cache-Control by kind of asset. Content types for files
// without an extension (e.g. /.well-known/api-catalog) come from the build's content-types.json.
//
// A build never changes once it is served (a rebuild is a new directory and a new StaticFiles), so each path is
// resolved once: its files are stat'ed and its response headers prepared on first request, and small files are
// kept in memory (bounded by bytes). A repeated request costs a map lookup and one write; a conditional one is
// answered from the prepared validator without touching the disk.
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

/** The file a URL path names in the build (as is, dir/index.html, path.html); undefined outside it or missing. */
function locate(root: string, path: string): Located | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0')) return undefined;
  const relative = normalize(decoded).replace(/^([/\\])+/, '');
  if (relative.split(sep).includes('..') || SERVER_MANIFESTS.has(relative)) return undefined;
  const base = join(root, relative);
  if (!base.startsWith(root)) return undefined;
  for (const candidate of [base, join(base, 'index.html'), `${base}.html`]) {
    const stats = fileStats(candidate);
    if (stats) return { file: candidate, stats, logical: '/' + candidate.slice(root.length + 1).split(sep).join('/') };
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

  constructor(root: string, options: StaticFilesOptions) {
    this.root = root;
    this.maxCachedFileBytes = options.maxCachedFileBytes ?? 1024 * 1024;
    this.overrides = readManifest<ContentTypesManifest>(root, MANIFEST_FILES.contentTypes);
    this.negotiation = readManifest<NegotiationManifest>(root, MANIFEST_FILES.negotiation);
    this.extraHeaders = readManifest<HeadersManifest>(root, MANIFEST_FILES.headers);
    this.paths = new LRUCache({ max: options.maxPaths ?? 50_000 });
    this.bytes = new LRUCache({ maxSize: options.maxCachedBytes ?? 32 * 1024 * 1024, sizeCalculation: (buffer) => Math.max(1, buffer.length) });
  }

  has(path: string): boolean {
    return existsSync(join(this.root, path));
  }

  async exists(path: string): Promise<boolean> {
    return this.resolve(path) !== undefined;
  }

  async reply(request: FileRequest): Promise<Reply | undefined> {
    const resolved = this.resolve(request.path);
    if (!resolved) return undefined;
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
    if (!found) {
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
