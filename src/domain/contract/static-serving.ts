// How the built site is served: content types by extension, the manifests the build writes next to the files
// (types a file name cannot carry, negotiated representations, extra headers), and the Cache-Control policy.
// One module for the three readers of these facts: the build (build/site-writer.ts), the shim's static handler
// (server/http/static-files.ts) and the generated nginx front (src/nginx-front/nginx-front.ts).

/** Media type by file extension; anything else is application/octet-stream. */
export const CONTENT_TYPES: Readonly<Record<string, string>> = {
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
export const DEFAULT_CONTENT_TYPE = 'application/octet-stream';

/** content-types.json: site path → its media type, for files whose name does not imply it. */
export type ContentTypesManifest = Record<string, string>;
/** negotiation.json: site path → the representations it is offered as, default first. */
export type NegotiationManifest = Record<string, Array<{ type: string; file: string }>>;
/** headers.json: site path → extra response headers. */
export type HeadersManifest = Record<string, Record<string, string>>;

export const MANIFEST_FILES = { contentTypes: 'content-types.json', negotiation: 'negotiation.json', headers: 'headers.json' } as const;
/** The build's instructions to the servers; files of the site directory, but not part of the site. */
export const SERVER_MANIFESTS: ReadonlySet<string> = new Set(Object.values(MANIFEST_FILES));

/** Precompressed siblings, in the order they are preferred. */
export const PRECOMPRESSED = [
  { encoding: 'br', suffix: '.br' },
  { encoding: 'gzip', suffix: '.gz' },
] as const;

/** Build assets have content-hashed names and never change; every other file may change with the next build. */
export const IMMUTABLE_PREFIX = '/_astro/';
export const CACHE_CONTROL = {
  immutable: 'public, max-age=31536000, immutable',
  revalidate: 'public, max-age=300, stale-while-revalidate=86400',
} as const;

export function cacheControlFor(sitePath: string): string {
  return sitePath.startsWith(IMMUTABLE_PREFIX) ? CACHE_CONTROL.immutable : CACHE_CONTROL.revalidate;
}

/**
 * The request paths that resolve to a site file, as the static handler resolves them: the file itself, and for
 * an index.html its directory with and without the slash, for a page.html its name without the extension, with and
 * without a slash.
 */
export function requestPathsOf(sitePath: string): string[] {
  if (sitePath.endsWith('/index.html')) {
    const dir = sitePath.slice(0, -'index.html'.length);
    return dir === '/' ? [sitePath, '/'] : [sitePath, dir, dir.slice(0, -1)];
  }
  if (sitePath.endsWith('.html')) return [sitePath, sitePath.slice(0, -'.html'.length), `${sitePath.slice(0, -'.html'.length)}/`];
  return [sitePath];
}
