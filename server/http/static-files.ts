// Serves the built static output: path → file (also dir/index.html), the precompressed .br/.gz sibling when
// the client accepts it, strong ETags, and Cache-Control by kind of asset. Content types for files without
// an extension (e.g. /.well-known/api-catalog) come from the build's content-types.json.
import { createReadStream, existsSync, readFileSync, type Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import type { HeadersManifest, NegotiationManifest } from '../../src/domain/static-serving.ts';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.xml': 'application/xml; charset=utf-8',
  '.yaml': 'application/yaml; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webmanifest': 'application/manifest+json',
  '.woff2': 'font/woff2',
};

export interface StaticFiles {
  /** true when a file was served (or a 304/HEAD answered); false when nothing is there. */
  serve(req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean>;
  /** The served bytes of a file, for routes that negotiate between prebuilt variants. */
  has(path: string): boolean;
}

// RFC 9110 §12.5.1: the q of the most specific matching range (type/subtype, then type/*, then the full wildcard).
function acceptQuality(ranges: Array<{ type: string; q: number }>, offered: string): number {
  const type = offered.split(';')[0]!.trim().toLowerCase();
  const major = type.slice(0, type.indexOf('/'));
  let best = -1;
  let q = 0;
  for (const range of ranges) {
    const specificity = range.type === type ? 3 : range.type === `${major}/*` ? 2 : range.type === '*/*' ? 1 : 0;
    if (specificity > best && specificity > 0) {
      best = specificity;
      q = range.q;
    }
  }
  return q;
}

/**
 * Index of the offered media type the Accept header prefers; ties and an absent or unsatisfiable Accept give the
 * first (the default), since RFC 9110 lets a server send its default rather than 406.
 */
export function negotiateMediaType(accept: string | undefined, offered: readonly string[]): number {
  if (!accept) return 0;
  const ranges = accept.split(',').map((part) => {
    const [type = '', ...params] = part.split(';');
    const qParam = params.find((p) => /^\s*q\s*=/i.test(p));
    const q = qParam ? Number(qParam.split('=')[1]) : 1;
    return { type: type.trim().toLowerCase(), q: Number.isFinite(q) ? q : 0 };
  });
  let chosen = 0;
  let bestQ = 0;
  offered.forEach((type, index) => {
    const q = acceptQuality(ranges, type);
    if (q > bestQ) {
      bestQ = q;
      chosen = index;
    }
  });
  return chosen;
}

/** The build's instructions to this handler; files of the site directory, but not part of the site. */
const SERVER_MANIFESTS = new Set(['content-types.json', 'negotiation.json', 'headers.json']);

export function createStaticFiles(root: string): StaticFiles {
  const manifest = <T>(name: string): T => (existsSync(join(root, name)) ? JSON.parse(readFileSync(join(root, name), 'utf8')) : {}) as T;
  const overrides = manifest<Record<string, string>>('content-types.json');
  const negotiation = manifest<NegotiationManifest>('negotiation.json');
  const extraHeaders = manifest<HeadersManifest>('headers.json');

  const resolveFile = async (path: string): Promise<{ file: string; stats: Stats; logical: string } | undefined> => {
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
      const stats = await stat(candidate).catch(() => undefined);
      if (stats?.isFile()) return { file: candidate, stats, logical: '/' + candidate.slice(root.length + 1).split(sep).join('/') };
    }
    return undefined;
  };

  return {
    has(path) {
      return existsSync(join(root, path));
    },
    async serve(req, res, path) {
      let found = await resolveFile(path);
      if (!found) return false;
      const logical = found.logical;
      let type = overrides[found.logical] ?? CONTENT_TYPES[extname(found.file)] ?? 'application/octet-stream';
      // A representation other than the default has its own validator (RFC 9110 §8.8.3) and caches must key on Accept.
      let variantTag = '';
      const variants = negotiation[logical];
      if (variants && variants.length > 0) {
        const index = negotiateMediaType(req.headers.accept, variants.map((v) => v.type));
        const variant = variants[index]!;
        if (variant.file !== found.logical) found = (await resolveFile(variant.file)) ?? found;
        type = variant.type;
        variantTag = `-v${index}`;
      }
      const accept = String(req.headers['accept-encoding'] ?? '');
      let file = found.file;
      let stats = found.stats;
      let encoding: string | undefined;
      for (const [name, suffix] of [['br', '.br'], ['gzip', '.gz']] as const) {
        if (!new RegExp(`\\b${name}\\b`).test(accept)) continue;
        const variant = await stat(found.file + suffix).catch(() => undefined);
        if (variant?.isFile()) {
          file = found.file + suffix;
          stats = variant;
          encoding = name;
          break;
        }
      }
      const etag = `"${found.stats.size.toString(36)}-${Math.floor(found.stats.mtimeMs).toString(36)}${variantTag}${encoding ? `-${encoding}` : ''}"`;
      res.setHeader('Content-Type', type);
      res.setHeader('ETag', etag);
      res.setHeader('Vary', variants ? 'Accept, Accept-Encoding' : 'Accept-Encoding');
      for (const [name, value] of Object.entries(extraHeaders[logical] ?? {})) res.setHeader(name, value);
      res.setHeader('Last-Modified', found.stats.mtime.toUTCString());
      res.setHeader(
        'Cache-Control',
        found.logical.startsWith('/_astro/') ? 'public, max-age=31536000, immutable' : 'public, max-age=300, stale-while-revalidate=86400',
      );
      if (encoding) res.setHeader('Content-Encoding', encoding);
      const inm = req.headers['if-none-match'];
      if (inm && inm.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)) {
        res.statusCode = 304;
        res.end();
        return true;
      }
      res.statusCode = 200;
      res.setHeader('Content-Length', stats.size);
      if (req.method === 'HEAD') {
        res.end();
        return true;
      }
      await new Promise<void>((resolve, reject) => {
        const stream = createReadStream(file);
        stream.on('error', reject);
        res.on('close', () => {
          stream.destroy();
          resolve();
        });
        stream.pipe(res);
      });
      return true;
    },
  };
}
