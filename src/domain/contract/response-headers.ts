// Headers the shim sets on every answer and the generated front sets on the files it serves itself (one source
// for both, so an answer is the same whichever of them gives it): the page security set (a CSP that the built
// pages satisfy, no framing, no cross-origin referrer leak), the CORS lists of the open route family and the rule
// for the caller's X-Request-Id.

/** A caller's X-Request-Id kept as the answer's (it ends up in logs): a sane token; otherwise one is made. */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
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
  'API-Version, RateLimit, RateLimit-Policy, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, Search-Mode, Search-Match, Search-Corrected, Idempotent-Replayed, WWW-Authenticate, ETag, X-Request-Id, Catalog-Build';
export const CORS_ALLOWED_REQUEST_HEADERS =
  'Content-Type, API-Version, Idempotency-Key, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Mcp-Method, Last-Event-ID, X-Request-Id';

/** How a listing search was answered (semantic, hybrid, keyword-fallback); absent for a keyword search. */
export const SEARCH_MODE_HEADER = 'Search-Mode';
/** `partial` when too few listings held every word and the best partial matches follow them. */
export const SEARCH_MATCH_HEADER = 'Search-Match';
/**
 * The query searched instead of `q` when `q` had no exact hits and some of its words are in no listing (typo
 * tolerance: src/search/spelling.ts), percent-encoded as in a URL.
 */
export const SEARCH_CORRECTED_HEADER = 'Search-Corrected';
