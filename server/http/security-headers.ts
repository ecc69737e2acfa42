// Headers every answer carries: the page security set (CSP that the built pages satisfy, no framing, no
// cross-origin referrer leak) and CORS decided per route family. Public reads, discovery files, /ask and the
// JSON-RPC endpoints are open to every origin (they need no credential, and browser agents call them); staff
// routes, auth probes, the OAuth endpoints and /metrics are not (operations marked cors: 'closed'), so a page
// elsewhere cannot read them with a user's credentials. No preflight allows Authorization: the open routes need
// none, and the closed ones are not for browsers on other origins.
import FindMyWay from 'find-my-way';
import { OPERATIONS, routePath } from '../../src/domain/operations.ts';

/**
 * Every page script is an external module under /_astro/ and every style an external sheet (astro.config.mjs:
 * inlineStylesheets 'never'); JSON-LD blocks are data, which script-src does not govern. The browser tests load
 * every page type in Chromium and fail on any violation of this policy.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export const PAGE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'strict-origin-when-cross-origin',
  'X-Content-Type-Options': 'nosniff',
  'Cross-Origin-Opener-Policy': 'same-origin',
};

export const CORS_EXPOSED_HEADERS =
  'API-Version, RateLimit, RateLimit-Policy, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, Search-Mode, Search-Match, Idempotent-Replayed, WWW-Authenticate, ETag, X-Request-Id, Catalog-Build';
export const CORS_ALLOWED_REQUEST_HEADERS =
  'Content-Type, API-Version, Idempotency-Key, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Mcp-Method, Last-Event-ID, X-Request-Id';

export type CorsFamily = 'open' | 'closed';

/** The CORS family of a path, from the operations table (cors: 'closed'); anything else is open. */
export function corsPolicy(): (path: string) => CorsFamily {
  const closed = FindMyWay({ ignoreTrailingSlash: true, caseSensitive: true });
  const seen = new Set<string>();
  for (const op of OPERATIONS) {
    if (op.cors !== 'closed') continue;
    for (const path of op.paths.map(routePath)) {
      if (seen.has(path)) continue;
      seen.add(path);
      closed.on('GET', path, () => undefined);
    }
  }
  return (path) => (closed.find('GET', path) ? 'closed' : 'open');
}
