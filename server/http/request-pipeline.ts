// What every request goes through, whatever carries it (the node:http adapter, or an in-process call), as named
// steps in order: request target, CORS and links, API version, rate limit, OPTIONS, route, static files, not
// found (answer() below); then the mapping of any error to the documented shape. Nothing here touches a socket:
// it takes an IncomingRequest and gives a Reply.
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { Logger } from 'pino';
import { API_VERSION } from '../../src/domain/brand.ts';
import { REQUEST_ID_PATTERN } from '../../src/domain/contract/response-headers.ts';
import { CatalogError, invalidParameter } from '../../src/domain/contract/errors.ts';
import type { LiveCatalog, Snapshot } from '../catalog/snapshot.ts';
import { apiCatalogLink, discoveryLinkKind, discoveryLinks, isListingPage, listingMarkdownReply } from '../discovery/agent-readiness.ts';
import { listingPageSlug } from '../search-counters/index.ts';
import type { SearchSignals, Services } from '../services.ts';
import { clientAddress, rateLimitKey } from './client-ip.ts';
import { errorReply, json, toCatalogError, type Reply, type RequestContext } from './handler.ts';
import { negotiateMediaType } from './media-types.ts';
import { originForm } from './request-target.ts';
import type { Match, Router } from './router.ts';
import { siteBuildingReply } from './site-building.ts';
import type { RouteOperation, RouteOperationId } from '../../src/domain/contract/operations.ts';
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

  constructor(
    request: IncomingRequest,
    method: string,
    path: string,
    target: string,
    queryStart: number,
    params: Readonly<Record<string, string | undefined>>,
    clientIp: string,
    operation: RouteOperation | undefined,
  ) {
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

  /** Parsed on first use: most handlers need none, and on the hot path its allocation shows. */
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

/**
 * Called with every static file served to a GET or HEAD (the composition root's hook: search-signal counting).
 * Runs after the file is found and before it is sent, so it must not block.
 */
export type StaticFileHook = (method: string, path: string, file: Reply, snapshot: Snapshot) => void;

/** What the steps share, made once per pipeline: steps are plain functions of it and the exchange. */
interface Env {
  readonly services: Services;
  readonly config: Services['config'];
  readonly catalog: LiveCatalog;
  readonly router: Router;
  readonly corsFamily: (path: string) => 'open' | 'closed';
  readonly links: Readonly<Record<'all' | 'api-catalog', string>>;
  readonly onStaticFile: StaticFileHook | undefined;
}

/**
 * One request on its way through the steps, and what the pipeline gives back (Handled): the answer's headers
 * gather here, and answer() labels the route with the step that took the request. A class, made once per
 * request as the object literal it replaces was.
 */
class Exchange implements Handled {
  reply: Reply = NO_REPLY;
  readonly headers: OutgoingHttpHeaders;
  route = 'unmatched';
  operation: RouteOperationId | undefined = undefined;
  readonly requestId: string;
  target: string | undefined = undefined;
  readonly request: IncomingRequest;
  /** The target's path, and where its query starts (-1: none). */
  path = '';
  queryStart = -1;
  /** Whether the path's CORS family is open. */
  open = false;

  constructor(request: IncomingRequest, requestId: string, headers: OutgoingHttpHeaders) {
    this.request = request;
    this.requestId = requestId;
    this.headers = headers;
  }

  at(target: string): void {
    this.target = target;
    this.queryStart = target.indexOf('?');
    this.path = this.queryStart < 0 ? target : target.slice(0, this.queryStart);
  }
}

const NO_REPLY: Reply = { status: 500 };

/** The target in origin form, which everything after reads (routes, /browse's renderer); HTTP/1.1 needs a Host. */
function requestTarget(request: IncomingRequest): string {
  if (request.requiresHost && request.headers.host === undefined) {
    // Node's own refusal has no body; this one has the documented error.
    throw new CatalogError('invalid_parameter', 'An HTTP/1.1 request must carry a Host header.', { resolution: 'Send Host: with the name of the site.' });
  }
  return originForm(request.target, request.method);
}

/**
 * The CORS headers of an open path, the discovery Link of the paths that have one, Vary on listing pages; whether
 * the path is open (its OPTIONS answer is then a preflight).
 */
function corsAndLinks(env: Env, path: string, headers: OutgoingHttpHeaders): boolean {
  const open = env.corsFamily(path) === 'open';
  if (open) {
    headers['Access-Control-Allow-Origin'] = '*';
    headers['Access-Control-Expose-Headers'] = CORS_EXPOSED_HEADERS;
  }
  const linkKind = discoveryLinkKind(path);
  if (linkKind) headers.Link = env.links[linkKind];
  // A listing page answers HTML or Markdown by Accept, and so do its errors.
  if (isListingPage(path)) headers.Vary = 'Accept';
  return open;
}

function apiVersion(request: IncomingRequest): void {
  const requested = request.headers['api-version'];
  if (requested !== undefined && String(requested).trim() !== API_VERSION)
    throw new CatalogError('unsupported_api_version', `API-Version '${String(requested)}' is not supported; the only version is ${API_VERSION}.`);
}

/** Counts the request against its client's budget, with the RateLimit headers; 429 past it. */
async function rateLimit(env: Env, headers: OutgoingHttpHeaders, clientIp: string): Promise<void> {
  const { rateLimiter } = env.services;
  const decision = await rateLimiter.consume(rateLimitKey(clientIp));
  Object.assign(headers, rateLimiter.headers(decision));
  if (!decision.allowed) {
    throw new CatalogError('rate_limited', `More than ${decision.limit} requests in ${env.config.rateLimit.windowSeconds} seconds from this client.`, {
      headers: { 'Retry-After': String(Math.max(1, decision.reset)) },
    });
  }
}

/** OPTIONS: the methods of the path (a static file allows GET and HEAD), and the CORS preflight answer on open paths. */
async function options(env: Env, x: Exchange, snapshot: Snapshot): Promise<Reply> {
  const { path, headers } = x;
  let allow = path === '*' ? ['GET', 'HEAD', 'POST'] : env.router.allowed(path);
  if (allow.length === 0 && (await snapshot.files.exists(path))) allow = ['GET', 'HEAD'];
  headers.Allow = [...allow, 'OPTIONS'].join(', ');
  if (x.open) {
    headers['Access-Control-Allow-Methods'] = [...allow, 'OPTIONS'].join(', ');
    headers['Access-Control-Allow-Headers'] = CORS_ALLOWED_REQUEST_HEADERS;
    headers['Access-Control-Max-Age'] = '86400';
  }
  return { status: 204 };
}

/** The matched route's handler, after its path parameters' length limits. */
function route(x: Exchange, match: Match, clientIp: string): Reply | Promise<Reply> {
  for (const spec of match.operation?.pathParams ?? []) {
    const value = match.params[spec.name];
    if (value !== undefined && value.length > spec.maxLength) throw invalidParameter(spec.name, `must be at most ${spec.maxLength} characters`);
  }
  const { request } = x;
  return match.handler(new RouteContext(request, request.method, x.path, x.target!, x.queryStart, match.params, clientIp, match.operation));
}

/** A file of the build (or a listing page as Markdown, by Accept) for GET and HEAD; undefined when there is none. */
async function staticFile(env: Env, x: Exchange, snapshot: Snapshot): Promise<Reply | undefined> {
  const { request, path } = x;
  const { method } = request;
  if (method !== 'GET' && method !== 'HEAD') return undefined;
  // Until the first build's site exists, a page answers that it is being built (the API already answers).
  if (env.services.site?.building) return siteBuildingReply(request.headers);
  const file =
    listingMarkdownReply(env.services, { path, headers: request.headers }) ?? (await snapshot.files.reply({ method, path, headers: request.headers }));
  if (file) env.onStaticFile?.(method, path, file, snapshot);
  return file;
}

/** The methods served at a path the request's method is not (a static file allows GET and HEAD): a 405's Allow. */
async function otherMethods(env: Env, x: Exchange, snapshot: Snapshot): Promise<string[]> {
  const { method } = x.request;
  const allow = env.router.allowed(x.path);
  if (allow.length === 0 && method !== 'GET' && method !== 'HEAD' && (await snapshot.files.exists(x.path))) allow.push('GET', 'HEAD');
  return allow;
}

/** The site's 404 page for a browser; the documented not_found error for everyone else. */
async function notFound(x: Exchange, snapshot: Snapshot): Promise<Reply> {
  const { request, path } = x;
  const { method } = request;
  // A browser navigating to a page that does not exist gets the site's 404 page; API clients keep the JSON error.
  if ((method === 'GET' || method === 'HEAD') && negotiateMediaType(request.headers.accept, ['application/json', 'text/html']) === 1) {
    const page = await snapshot.files.reply({ method: 'GET', path: '/404.html', headers: {} });
    if (page?.body !== undefined) return json(404, page.body, { 'Cache-Control': 'no-cache' }, 'text/html; charset=utf-8');
  }
  throw new CatalogError('not_found', `Nothing is served at ${path}.`, {
    resolution: 'See /openapi.json for the API and /llms.txt for a map of the site.',
  });
}

/**
 * The steps in order, as hono composes middleware: each either answers (a Reply, or a thrown CatalogError) or
 * passes on. Written out rather than looped over, so a synchronous step costs no await; the route label is set
 * before a step runs, so an error it throws is counted under it.
 */
async function answer(env: Env, x: Exchange): Promise<Reply> {
  const { request } = x;
  x.at(requestTarget(request));
  x.open = corsAndLinks(env, x.path, x.headers);
  apiVersion(request);
  const clientIp = clientAddress(request.remoteAddress, request.headers, env.config.trustProxy);
  if (countsAgainstLimit(x.path)) await rateLimit(env, x.headers, clientIp);
  // One snapshot answers the rest of the request, though a rebuild may switch it in the meantime.
  const snapshot = env.catalog.current;
  if (request.method === 'OPTIONS') {
    x.route = 'options';
    return options(env, x, snapshot);
  }
  const match = env.router.find(request.method, x.path);
  if (match) {
    x.route = match.route;
    x.operation = match.operation?.id as RouteOperationId | undefined;
    return route(x, match, clientIp);
  }
  x.route = 'static';
  const file = await staticFile(env, x, snapshot);
  if (file) return file;
  x.route = 'not_found';
  const allow = await otherMethods(env, x, snapshot);
  if (allow.length > 0) {
    x.route = 'method_not_allowed';
    throw new CatalogError('method_not_allowed', `${request.method} is not allowed on ${x.path}.`, { headers: { Allow: allow.join(', ') } });
  }
  return notFound(x, snapshot);
}

/** A listing page served is an open, like a read by id (searchTrend). */
export function countListingOpens(signals: SearchSignals): StaticFileHook {
  return (method, path, file, snapshot) => {
    if (method !== 'GET' || file.status >= 400) return;
    const slug = listingPageSlug(path);
    if (slug === undefined) return;
    const doc = snapshot.store.findDoc(slug);
    if (doc !== undefined) signals.opened(snapshot, doc);
  };
}

export function createPipeline({ services, catalog, router, logger }: PipelineDeps): Pipeline {
  const { config } = services;
  const env: Env = {
    services,
    config,
    catalog,
    router,
    corsFamily: corsPolicy(),
    links: { all: discoveryLinks(config.baseUrl), 'api-catalog': apiCatalogLink(config.baseUrl) },
    onStaticFile: services.signals ? countListingOpens(services.signals) : undefined,
  };
  return async (request) => {
    const requestId = requestIdOf(request.headers['x-request-id']);
    // Every answer names the build it came from, so a rebuild's switch is visible (and checkable) per response.
    const headers: OutgoingHttpHeaders = {
      'X-Request-Id': requestId,
      'API-Version': API_VERSION,
      'Catalog-Build': catalog.current.buildId,
      ...PAGE_SECURITY_HEADERS,
    };
    const x = new Exchange(request, requestId, headers);
    let reply: Reply;
    try {
      reply = await answer(env, x);
    } catch (error) {
      const catalogError = toCatalogError(error);
      if (catalogError.status >= 500) logger.error({ err: error, reqId: requestId, url: request.target, method: request.method }, 'request failed');
      reply = errorReply(catalogError);
    }
    if (reply.headers) Object.assign(headers, reply.headers);
    x.reply = reply;
    return x;
  };
}
