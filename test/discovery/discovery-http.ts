// Helpers of the discovery tests: raw HTTP (fetch decodes br/gzip by itself, so the wire bytes need node:http),
// the URLs a discovery file mentions, and how each kind of URL on this origin is checked.
import { request } from 'node:http';
import { AGENT_PATHS } from '../../src/domain/agents/agent-surfaces.ts';
import { OPERATIONS } from '../../src/domain/contract/operations.ts';
import { SITE_PATHS } from '../../src/domain/site-paths.ts';
import { TEST_BASE_URL } from '../support/server.ts';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** One request with exactly these headers; the body as sent on the wire (still compressed if it was). */
export function rawRequest(origin: string, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(origin + path, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Every absolute URL on the public origin in a text: Markdown links, bare URLs, URLs in code spans. */
export function urlsInText(text: string): string[] {
  const found = text.match(new RegExp(`${TEST_BASE_URL.replace(/[.]/g, '\\.')}[^\\s)\\]>\`'"|,]*`, 'g')) ?? [];
  return found.map((url) => url.replace(/[.;:]+$/, ''));
}

/** Every string value of a JSON document that is a URL on the public origin. */
export function urlsInJson(value: unknown): string[] {
  if (typeof value === 'string') return value.startsWith(TEST_BASE_URL) ? [value] : [];
  if (Array.isArray(value)) return value.flatMap(urlsInJson);
  if (value && typeof value === 'object') return Object.values(value).flatMap(urlsInJson);
  return [];
}

// Page URLs are built by SITE_PATHS; a sample argument turns each builder into a pattern.
const PAGE_PATTERNS: RegExp[] = Object.values(SITE_PATHS).map((entry) => {
  const sample = typeof entry === 'function' ? (entry as (...args: string[]) => string)('SEGMENT', 'SEGMENT') : entry;
  const escaped = sample.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/SEGMENT/g, '[a-z0-9][a-z0-9-]*');
  return new RegExp(`^${escaped}$`);
});

/**
 * How a URL on the origin is checked:
 * - `page`: a site page (SITE_PATHS). The Astro pages are another stage, built separately from this one, so the
 *   test build may not have them: pages are checked for shape (a SITE_PATHS URL), not fetched.
 * - `post-only`: an operation with no GET (JSON-RPC, batch); a POST must reach its handler (neither 404 nor 405).
 * - `needs-query`: /ask named without a question (an API anchor, or prose); checked with one.
 * - `template`: a URI template ({slug}) in prose; checked with a real slug filled in.
 * - `get`: an API path or a discovery file; a GET must answer 200.
 */
export type UrlKind = 'page' | 'post-only' | 'needs-query' | 'template' | 'get';

const POST_ONLY = new Set(
  OPERATIONS.filter((op) => op.method === 'POST')
    .flatMap((op) => op.paths)
    .filter((path) => !OPERATIONS.some((op) => op.method === 'GET' && op.paths.includes(path))),
);

export function classify(url: string): { kind: UrlKind; path: string } {
  const path = url.slice(TEST_BASE_URL.length) || '/';
  const bare = path.split('?')[0]!;
  if (path.includes('{')) return { kind: 'template', path };
  if (POST_ONLY.has(path)) return { kind: 'post-only', path };
  if (path === AGENT_PATHS.ask) return { kind: 'needs-query', path };
  if (PAGE_PATTERNS.some((pattern) => pattern.test(bare))) return { kind: 'page', path };
  return { kind: 'get', path };
}
