// What every request goes through, whatever carries it (the node:http adapter, or an in-process call): the
// headers every answer has, the Host and API-Version checks, CORS, the rate limit, OPTIONS, the route table,
// then the build's static files, the 405/404 answers, and the mapping of any error to the documented shape.
// Nothing here touches a socket: it takes an IncomingRequest and gives a Reply.
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { Logger } from 'pino';
import { API_VERSION } from '../../src/domain/brand.ts';
import { REQUEST_ID_PATTERN } from '../../src/domain/response-headers.ts';
import { CatalogError, invalidParameter } from '../../src/domain/errors.ts';
import type { LiveCatalog } from '../catalog/snapshot.ts';
import { apiCatalogLink, discoveryLinkKind, discoveryLinks, isListingPage, listingMarkdownReply } from '../discovery/agent-readiness.ts';
import { listingPageSlug } from '../search-counters/index.ts';
import type { Services } from '../services.ts';
import { clientAddress, rateLimitKey } from './client-ip.ts';
import { errorReply, json, toCatalogError, type Reply, type RequestContext } from './handler.ts';
import { negotiateMediaType } from './media-types.ts';
import { originForm } from './request-target.ts';
import type { Router } from './router.ts';
import { siteBuildingReply } from './site-building.ts';
import type { RouteOperation, RouteOperationId } from '../../src/domain/operations.ts';
import { CORS_ALLOWED_REQUEST_HEADERS, CORS_EXPOSED_HEADERS, PAGE_SECURITY_HEADERS, corsPolicy } from './security-headers.ts';

/** A request as the pipeline sees it: what the adapter (or an in-process caller) read off the wire. */
export interface IncomingRequest {
  readonly method: string;
  /** The request target as sent (origin or absolute form). */
  readonly target: string;
  readonly headers: IncomingHttpHeaders;
  /** The peer's address (the client, or the proxy in front: X-Forwarded-For is believed as TRUST_PROXY says). */
  readonly remoteAddress: string;
  readonly signal: AbortSignal;
  /** HTTP/1.1 and later require a Host header (RFC 9112 3.2); an HTTP/1.0 request may omit it. */
  readonly requiresHost: boolean;
  body(): Promise<Buffer>;
}

export interface Handled {
  /** The handler's reply; its headers are in `headers`, merged over the ones every answer carries. */
  reply: Reply;
  headers: OutgoingHttpHeaders;
  /** The route label of metrics and logs: the matched pattern, or static, options, not_found ... */
  route: string;
  /** The operation answered, when a route matched. */
  operation: RouteOperationId | undefined;
  requestId: string;
  /** The target in origin form (what node-bound replies must see as req.url); undefined when it was invalid. */
  target: string | undefined;
}

export type Pipeline = (request: IncomingRequest) => Promise<Handled>;

/**
 * Static assets a page pulls in are not counted against the API budget (a page view costs one request), nor
 * are the JSON shards, which exist for CDNs and mirrors to fetch in bulk, nor the health and readiness probes.
 */
function countsAgainstLimit(path: string): boolean {
  return !path.startsWith('/_astro/') && !path.startsWith('/shards/') && !NOT_COUNTED.has(path);
}

/** Icons, and the probes a load balancer sends every few seconds from one address (they touch nothing). */
const NOT_COUNTED = new Set(['/favicon.ico', '/favicon.svg', '/healthz', '/readyz']);

/** The caller's X-Request-Id when it is a sane token (it ends up in logs), else a new UUID. */
function requestIdOf(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value !== undefined && REQUEST_ID_PATTERN.test(value) ? value : randomUUID();
}

/**
 * What a route handler sees. A class rather than an object literal with getters, for the reason NodeRequest is
 * (node-adapter.ts): a literal's getter closures kept every request's objects alive until a full collection.
 */
class RouteContext implements RequestContext {
  readonly headers: IncomingHttpHeaders;
  readonly #request: IncomingRequest;
  readonly #queryStart: number;
  #query: URLSearchParams | undefined;
  readonly method: string;
  readonly path: string;
  readonly target: string;
  readonly params: Readonly<Record<string, string | undefined>>;
  readonly clientIp: string;
  readonly operation: RouteOperation | undefined;

  constructor(request: IncomingRequest, method: string, path: string, target: string, queryStart: number, params: Readonly<Record<string, string | undefined>>, clientIp: string, operation: RouteOperation | undefined) {
    this.#request = request;
    this.#queryStart = queryStart;
    this.method = method;
    this.path = path;
    this.target = target;
    this.params = params;
    this.headers = request.headers;
    this.clientIp = clientIp;
    this.operation = operation;
  }

  /** Parsed on first use: most handlers need none, and at tens of thousands of requests a second its allocation shows. */
  get query(): URLSearchParams {
    this.#query ??= new URLSearchParams(this.#queryStart < 0 ? '' : this.target.slice(this.#queryStart + 1));
    return this.#query;
  }

  get signal(): AbortSignal {
    return this.#request.signal;
  }

  body(): Promise<Buffer> {
    return this.#request.body();
  }
}

export interface PipelineDeps {
  services: Services;
  catalog: LiveCatalog;
  router: Router;
  logger: Logger;
}

export function createPipeline({ services, catalog, router, logger }: PipelineDeps): Pipeline {
  const { config } = services;
  const corsFamily = corsPolicy();
  const links = { all: discoveryLinks(config.baseUrl), 'api-catalog': apiCatalogLink(config.baseUrl) };

  const route = async (request: IncomingRequest, headers: OutgoingHttpHeaders, handled: Handled): Promise<Reply> => {
    const { method } = request;
    if (request.requiresHost && request.headers.host === undefined) {
      // Node's own refusal has no body; this one has the documented error.
      throw new CatalogError('invalid_parameter', 'An HTTP/1.1 request must carry a Host header.', { resolution: 'Send Host: with the name of the site.' });
    }
    // Absolute-form targets are reduced to their path before anything reads the target (routes, /browse's renderer).
    const target = originForm(request.target, method);
    handled.target = target;
    const q = target.indexOf('?');
    const path = q < 0 ? target : target.slice(0, q);
    const open = corsFamily(path) === 'open';
    if (open) {
      headers['Access-Control-Allow-Origin'] = '*';
      headers['Access-Control-Expose-Headers'] = CORS_EXPOSED_HEADERS;
    }
    const linkKind = discoveryLinkKind(path);
    if (linkKind) headers.Link = links[linkKind];
    // A listing page answers HTML or Markdown by Accept, and so do its errors.
    if (isListingPage(path)) headers.Vary = 'Accept';

    const requested = request.headers['api-version'];
    if (requested !== undefined && String(requested).trim() !== API_VERSION)
      throw new CatalogError('unsupported_api_version', `API-Version '${String(requested)}' is not supported; the only version is ${API_VERSION}.`);

    const clientIp = clientAddress(request.remoteAddress, request.headers, config.trustProxy);
    if (countsAgainstLimit(path)) {
      const decision = await services.rateLimiter.consume(rateLimitKey(clientIp));
      Object.assign(headers, services.rateLimiter.headers(decision));
      if (!decision.allowed) {
        throw new CatalogError('rate_limited', `More than ${decision.limit} requests in ${config.rateLimit.windowSeconds} seconds from this client.`, {
          headers: { 'Retry-After': String(Math.max(1, decision.reset)) },
        });
      }
    }

    const snapshot = catalog.current;
    if (method === 'OPTIONS') {
      handled.route = 'options';
      let allow = path === '*' ? ['GET', 'HEAD', 'POST'] : router.allowed(path);
      if (allow.length === 0 && (await snapshot.files.exists(path))) allow = ['GET', 'HEAD'];
      headers.Allow = [...allow, 'OPTIONS'].join(', ');
      if (open) {
        headers['Access-Control-Allow-Methods'] = [...allow, 'OPTIONS'].join(', ');
        headers['Access-Control-Allow-Headers'] = CORS_ALLOWED_REQUEST_HEADERS;
        headers['Access-Control-Max-Age'] = '86400';
      }
      return { status: 204 };
    }

    const match = router.find(method, path);
    if (match) {
      handled.route = match.route;
      handled.operation = match.operation?.id as RouteOperationId | undefined;
      for (const spec of match.operation?.pathParams ?? []) {
        const value = match.params[spec.name];
        if (value !== undefined && value.length > spec.maxLength) throw invalidParameter(spec.name, `must be at most ${spec.maxLength} characters`);
      }
      const ctx = new RouteContext(request, method, path, target, q, match.params, clientIp, match.operation);
      return match.handler(ctx);
    }

    handled.route = 'static';
    if (services.site?.building && (method === 'GET' || method === 'HEAD')) return siteBuildingReply(request.headers);
    if (method === 'GET' || method === 'HEAD') {
      const file = listingMarkdownReply(services, { path, headers: request.headers }) ?? (await snapshot.files.reply({ method, path, headers: request.headers }));
      if (file) {
        // A listing page served is an open, like a read by id (searchTrend).
        const slug = method === 'GET' && file.status < 400 ? listingPageSlug(path) : undefined;
        if (services.signals && slug !== undefined) {
          const doc = snapshot.store.findDoc(slug);
          if (doc !== undefined) services.signals.opened(snapshot, doc);
        }
        return file;
      }
    }
    handled.route = 'not_found';
    const allow = router.allowed(path);
    if (allow.length === 0 && method !== 'GET' && method !== 'HEAD' && (await snapshot.files.exists(path))) allow.push('GET', 'HEAD');
    if (allow.length > 0) {
      handled.route = 'method_not_allowed';
      throw new CatalogError('method_not_allowed', `${method} is not allowed on ${path}.`, { headers: { Allow: allow.join(', ') } });
    }
    // A browser navigating to a page that does not exist gets the site's 404 page; API clients keep the JSON error.
    if ((method === 'GET' || method === 'HEAD') && negotiateMediaType(request.headers.accept, ['application/json', 'text/html']) === 1) {
      const page = await snapshot.files.reply({ method: 'GET', path: '/404.html', headers: {} });
      if (page?.body !== undefined) return json(404, page.body, { 'Cache-Control': 'no-cache' }, 'text/html; charset=utf-8');
    }
    throw new CatalogError('not_found', `Nothing is served at ${path}.`, {
      resolution: 'See /openapi.json for the API and /llms.txt for a map of the site.',
    });
  };

  return async (request) => {
    const requestId = requestIdOf(request.headers['x-request-id']);
    const snapshot = catalog.current;
    // Every answer names the build it came from, so a rebuild's switch is visible (and checkable) per response.
    const headers: OutgoingHttpHeaders = { 'X-Request-Id': requestId, 'API-Version': API_VERSION, 'Catalog-Build': snapshot.buildId, ...PAGE_SECURITY_HEADERS };
    const handled: Handled = { reply: { status: 500 }, headers, route: 'unmatched', operation: undefined, requestId, target: undefined };
    let reply: Reply;
    try {
      reply = await route(request, headers, handled);
    } catch (error) {
      const catalogError = toCatalogError(error);
      if (catalogError.status >= 500) logger.error({ err: error, reqId: requestId, url: request.target, method: request.method }, 'request failed');
      reply = errorReply(catalogError);
    }
    if (reply.headers) Object.assign(headers, reply.headers);
    handled.reply = reply;
    return handled;
  };
}
