// The composition root: builds every service once, registers every route module, and runs each request
// through the same pipeline (version check, rate limit, route or static file, error mapping).
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { pino, type Logger } from 'pino';
import { Redis } from 'ioredis';
import { API_VERSION } from '../src/domain/brand.ts';
import { CatalogError } from '../src/domain/errors.ts';
import type { Config } from '../src/config.ts';
import { LiveCatalog, loadSnapshot } from './catalog/live-catalog.ts';
import { clientAddress, rateLimitKey } from './http/client-ip.ts';
import { setBodyTimeout } from './http/body.ts';
import { createRateLimiter, type RateLimiter } from './http/rate-limit.ts';
import { sendError, toCatalogError } from './http/reply.ts';
import { originForm } from './http/request-target.ts';
import { CORS_ALLOWED_REQUEST_HEADERS, CORS_EXPOSED_HEADERS, PAGE_SECURITY_HEADERS, corsPolicy } from './http/security-headers.ts';
import { createMetrics } from './ops/metrics.ts';
import { watchRedis } from './ops/redis-health.ts';
import { Router, type RequestContext, type Route } from './http/router.ts';
import { createStaticFiles, type StaticFiles } from './http/static-files.ts';
import { negotiateMediaType } from './http/media-types.ts';
import { rememberedSearch } from './search/remembered-search.ts';
import { createHybridSearch } from './search/hybrid-search.ts';
import { SemanticIndex } from './search/semantic-index.ts';
import { ROUTE_MODULES } from './routes/index.ts';
import { createConfiguredSignals, listingPageSlug } from './search-counters/index.ts';
import { discoveryLinks, serveListingMarkdown, takesDiscoveryLinks } from './discovery/agent-readiness.ts';
import type { Services } from './services.ts';

export interface App {
  server: Server;
  services: Services;
  router: Router;
  listen(): Promise<AddressInfo>;
  close(): Promise<void>;
  /** The served snapshot's embeddings: loaded in the background once listening, and after every swap. */
  semantic: SemanticIndex;
  /** Switches to another build directory (after a rebuild); the old one keeps serving if it fails to load. */
  reload(buildDir: string): void;
}

/**
 * Static assets a page pulls in are not counted against the API budget (a page view costs one request), nor
 * are the JSON shards, which exist for CDNs and mirrors to fetch in bulk, nor the health and readiness probes.
 */
function countsAgainstLimit(path: string): boolean {
  return !path.startsWith('/_astro/') && !path.startsWith('/shards/') && !NOT_COUNTED.has(path);
}

/** Icons, and the probes a load balancer sends every few seconds from one address (they touch nothing). */
const NOT_COUNTED = new Set(['/favicon.ico', '/favicon.svg', '/healthz', '/readyz']);

export interface AppOptions {
  buildDir: string;
  logger?: Logger;
  /** Extra route modules (tests and later surfaces). */
  routes?: Array<(services: Services) => Route[]>;
}

/** An answer written straight to a socket (before or outside Node's response object), in the documented shape. */
function rawResponse(statusLine: string, error: CatalogError, extraHeaders = ''): string {
  const body = JSON.stringify(error.toBody());
  return (
    `HTTP/1.1 ${statusLine}\r\nContent-Type: application/json; charset=utf-8\r\nAPI-Version: ${API_VERSION}\r\n${extraHeaders}` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}

/** Routes that answer a listing search (for the search-mode metric). */
const SEARCH_ROUTES = new Set(['/api/v1/listings', '/v1/listings', '/sandbox/listings', '/api/upstream/listings', '/ask', '/browse']);

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's X-Request-Id when it is a sane token (it ends up in logs), else a new UUID. */
function requestIdOf(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value !== undefined && REQUEST_ID.test(value) ? value : randomUUID();
}

export function createApp(config: Config, options: AppOptions): App {
  const logger = options.logger ?? pino({ level: config.logLevel, base: undefined });
  const catalog = new LiveCatalog(loadSnapshot(options.buildDir));
  // No offline queue: when Redis is down, calls fail at once and the stores fall back instead of waiting.
  const redis = config.redisUrl ? new Redis(config.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: false }) : undefined;
  const metrics = createMetrics();
  const redisHealth = watchRedis(redis, logger, metrics);
  const semantic = new SemanticIndex(logger);
  const limiter = createRateLimiter({ max: config.rateLimit.max, windowSeconds: config.rateLimit.windowSeconds, redis });
  // Which store decided: Redis while it is up, the per-process insurance limiter while it is not.
  const rateLimiter: RateLimiter = {
    async consume(key, points) {
      const decision = await limiter.consume(key, points);
      metrics.rateLimit(decision.allowed, redisHealth.state === 'up' ? 'redis' : 'memory');
      return decision;
    },
    headers: (decision) => limiter.headers(decision),
  };
  const services: Services = {
    config,
    logger,
    catalog,
    redis,
    rateLimiter,
    listingSearch: rememberedSearch(createHybridSearch(semantic)),
    metrics,
    health: { redis: redisHealth, semantic: () => semantic.status },
  };
  const signals = createConfiguredSignals(config, logger, redis);
  services.signals = signals;

  const router = new Router();
  for (const module of [...ROUTE_MODULES, ...(options.routes ?? [])]) router.add(module(services));

  let staticFiles: StaticFiles = createStaticFiles(join(options.buildDir, 'site'));
  // Every answer names the build it came from, so a rebuild's switch is visible (and checkable) per response.
  let buildId = basename(options.buildDir);
  catalog.onSwap((next) => {
    void semantic.load(next);
    staticFiles = createStaticFiles(join(next.buildDir, 'site'));
    buildId = basename(next.buildDir);
  });
  const corsFamily = corsPolicy();

  const links = discoveryLinks(config.baseUrl);
  /** What the request log and the metrics learn while the request is handled. */
  interface Outcome {
    route: string;
  }

  const handle = async (req: IncomingMessage, res: ServerResponse, outcome: Outcome): Promise<void> => {
    res.setHeader('API-Version', API_VERSION);
    res.setHeader('Catalog-Build', buildId);
    for (const [name, value] of Object.entries(PAGE_SECURITY_HEADERS)) res.setHeader(name, value);
    const method = req.method ?? 'GET';
    // HTTP/1.1 requires Host (RFC 9112 3.2); Node's own refusal has no body, this one has the documented error.
    if (req.headers.host === undefined && req.httpVersionMajor === 1 && req.httpVersionMinor >= 1) {
      throw new CatalogError('invalid_parameter', 'An HTTP/1.1 request must carry a Host header.', { resolution: 'Send Host: with the name of the site.' });
    }
    // Absolute-form targets are reduced to their path before anything reads req.url (routes, /browse's renderer).
    const rawUrl = originForm(req.url ?? '/', method);
    req.url = rawUrl;
    const q = rawUrl.indexOf('?');
    const path = q < 0 ? rawUrl : rawUrl.slice(0, q);
    const open = corsFamily(path) === 'open';
    if (open) {
      res.setHeader('Access-Control-Allow-Origin', '*');
      res.setHeader('Access-Control-Expose-Headers', CORS_EXPOSED_HEADERS);
    }
    setBodyTimeout(req, config.timeouts.bodyMs);
    if (takesDiscoveryLinks(path)) res.setHeader('Link', links);

    const requested = req.headers['api-version'];
    if (requested !== undefined && String(requested).trim() !== API_VERSION)
      throw new CatalogError('unsupported_api_version', `API-Version '${String(requested)}' is not supported; the only version is ${API_VERSION}.`);

    const clientIp = clientAddress(req, config.trustProxy);
    if (countsAgainstLimit(path)) {
      const decision = await services.rateLimiter.consume(rateLimitKey(clientIp));
      const headers = services.rateLimiter.headers(decision);
      for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
      if (!decision.allowed) {
        throw new CatalogError('rate_limited', `More than ${decision.limit} requests in ${config.rateLimit.windowSeconds} seconds from this client.`, {
          headers: { 'Retry-After': String(Math.max(1, decision.reset)) },
        });
      }
    }

    if (method === 'OPTIONS') {
      outcome.route = 'options';
      let allow = path === '*' ? ['GET', 'HEAD', 'POST'] : router.allowed(path);
      if (allow.length === 0 && (await staticFiles.exists(path))) allow = ['GET', 'HEAD'];
      res.statusCode = 204;
      res.setHeader('Allow', [...allow, 'OPTIONS'].join(', '));
      if (open) {
        res.setHeader('Access-Control-Allow-Methods', [...allow, 'OPTIONS'].join(', '));
        res.setHeader('Access-Control-Allow-Headers', CORS_ALLOWED_REQUEST_HEADERS);
        res.setHeader('Access-Control-Max-Age', '86400');
      }
      res.end();
      return;
    }

    const match = router.find(method, path);
    if (match) {
      outcome.route = match.route;
      // The query and the abort signal are made on first use: most handlers need one or neither, and at
      // tens of thousands of requests a second their allocation shows.
      let query: URLSearchParams | undefined;
      let controller: AbortController | undefined;
      const ctx: RequestContext = {
        req,
        res,
        method,
        path,
        get query() {
          query ??= new URLSearchParams(q < 0 ? '' : rawUrl.slice(q + 1));
          return query;
        },
        params: match.params,
        clientIp,
        get signal() {
          if (!controller) {
            const created = new AbortController();
            controller = created;
            res.on('close', () => {
              if (!res.writableFinished) created.abort();
            });
          }
          return controller.signal;
        },
      };
      await match.handler(ctx);
      return;
    }
    outcome.route = 'static';
    if ((method === 'GET' || method === 'HEAD') && serveListingMarkdown(services, req, res, path)) return;
    if ((method === 'GET' || method === 'HEAD') && (await staticFiles.serve(req, res, path))) {
      // A listing page served is an open, like a read by id (searchTrend).
      const slug = method === 'GET' && res.statusCode < 400 ? listingPageSlug(path) : undefined;
      if (signals && slug !== undefined) {
        const current = catalog.current;
        const doc = current.store.findDoc(slug);
        if (doc !== undefined) signals.opened(current, doc);
      }
      return;
    }
    outcome.route = 'not_found';
    const allow = router.allowed(path);
    if (allow.length === 0 && method !== 'GET' && method !== 'HEAD' && (await staticFiles.exists(path))) allow.push('GET', 'HEAD');
    if (allow.length > 0) {
      outcome.route = 'method_not_allowed';
      throw new CatalogError('method_not_allowed', `${method} is not allowed on ${path}.`, { headers: { Allow: allow.join(', ') } });
    }
    // A browser navigating to a page that does not exist gets the site's 404 page; API clients keep the JSON error.
    if ((method === 'GET' || method === 'HEAD') && negotiateMediaType(req.headers.accept, ['application/json', 'text/html']) === 1) {
      const page = await readFile(join(catalog.current.buildDir, 'site', '404.html')).catch(() => undefined);
      if (page) {
        res.statusCode = 404;
        res.setHeader('Content-Type', 'text/html; charset=utf-8');
        res.setHeader('Content-Length', page.length);
        res.setHeader('Cache-Control', 'no-cache');
        res.end(method === 'HEAD' ? undefined : page);
        return;
      }
    }
    throw new CatalogError('not_found', `Nothing is served at ${path}.`, {
      resolution: 'See /openapi.json for the API and /llms.txt for a map of the site.',
    });
  };

  const { timeouts } = config;
  const server = createServer(
    {
      keepAliveTimeout: timeouts.keepAliveMs,
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      // Node checks the two timeouts above only this often (30 s by default, so a 10 s limit fired after 40 s).
      connectionsCheckingInterval: Math.max(250, Math.min(1000, Math.floor(timeouts.headersMs / 4))),
      // Checked in handle(), so the refusal has the documented body.
      requireHostHeader: false,
    },
    (req, res) => {
      const started = performance.now();
      const requestId = requestIdOf(req.headers['x-request-id']);
      res.setHeader('X-Request-Id', requestId);
      const outcome: Outcome = { route: 'unmatched' };
      res.once('close', () => {
        const seconds = (performance.now() - started) / 1000;
        metrics.request(outcome.route, req.method ?? 'GET', res.statusCode, seconds);
        // Searches without `semantic` carry no Search-Mode header: they are keyword searches.
        const mode = res.getHeader('Search-Mode');
        if (mode !== undefined || (SEARCH_ROUTES.has(outcome.route) && res.statusCode === 200)) metrics.searchMode(mode === undefined ? 'keyword' : String(mode));
        if (logger.isLevelEnabled('info')) {
          logger.info(
            { reqId: requestId, method: req.method, url: req.url, route: outcome.route, status: res.statusCode, ms: Math.round(seconds * 10_000) / 10, completed: res.writableFinished },
            'request',
          );
        }
      });
      handle(req, res, outcome).catch((error: unknown) => {
        const catalogError = toCatalogError(error);
        if (catalogError.status >= 500) logger.error({ err: error, reqId: requestId, url: req.url, method: req.method }, 'request failed');
        sendError(res, catalogError);
      });
    },
  );
  // Socket inactivity while a request is in progress (a client that stops reading, or stops sending).
  server.setTimeout(timeouts.idleMs);
  // A request Node itself rejects (malformed HTTP, or too slow) still gets the documented error shape.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable) return;
    const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
    const refusal = timedOut
      ? new CatalogError('request_timeout', `The request was not received within ${timeouts.headersMs} ms (headers) or ${timeouts.requestMs} ms (whole request).`)
      : new CatalogError('invalid_parameter', 'The request is not valid HTTP.');
    socket.end(rawResponse(timedOut ? '408 Request Timeout' : '400 Bad Request', refusal));
  });
  // CONNECT (a tunnel request) never reaches the request handler; the shim is not a proxy.
  server.on('connect', (_req: IncomingMessage, socket: Socket) => {
    socket.end(rawResponse('405 Method Not Allowed', new CatalogError('method_not_allowed', 'CONNECT is not served: this is not a proxy.'), 'Allow: GET, HEAD, POST, OPTIONS\r\n'));
  });

  return {
    server,
    services,
    router,
    semantic,
    listen() {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(config.port, config.host, () => {
          server.off('error', reject);
          // After listening, so loading the model and vectors never delays the first answer.
          void semantic.load(catalog.current);
          resolve(server.address() as AddressInfo);
        });
      });
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await signals?.close();
      await semantic.close();
      catalog.current.store.close();
      redis?.disconnect();
    },
    reload(buildDir) {
      catalog.swap(buildDir);
      logger.info({ buildDir }, 'switched to a new build');
    },
  };
}
