// The composition root: builds every service once, registers every route module, and runs each request
// through the same pipeline (version check, rate limit, route or static file, error mapping).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import { Redis } from 'ioredis';
import { API_VERSION } from '../src/domain/brand.ts';
import { CatalogError } from '../src/domain/errors.ts';
import type { Config } from './config.ts';
import { LiveCatalog, loadSnapshot } from './catalog/live-catalog.ts';
import { clientAddress, rateLimitKey } from './http/client-ip.ts';
import { createRateLimiter } from './http/rate-limit.ts';
import { sendError, toCatalogError } from './http/reply.ts';
import { Router, type RequestContext, type Route } from './http/router.ts';
import { createStaticFiles, negotiateMediaType, type StaticFiles } from './http/static-files.ts';
import { createHybridSearch } from './search/hybrid-search.ts';
import { SemanticIndex } from './search/semantic-index.ts';
import { ROUTE_MODULES } from './routes/index.ts';
import { createConfiguredSignals, listingPageSlug } from './signals/index.ts';
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
 * are the JSON shards, which exist for CDNs and mirrors to fetch in bulk.
 */
function countsAgainstLimit(path: string): boolean {
  return !path.startsWith('/_astro/') && !path.startsWith('/shards/') && path !== '/favicon.ico' && path !== '/favicon.svg';
}

export interface AppOptions {
  buildDir: string;
  logger?: Logger;
  /** Extra route modules (tests and later surfaces). */
  routes?: Array<(services: Services) => Route[]>;
}

export function createApp(config: Config, options: AppOptions): App {
  const logger = options.logger ?? pino({ level: config.logLevel, base: undefined });
  const catalog = new LiveCatalog(loadSnapshot(options.buildDir));
  // No offline queue: when Redis is down, calls fail at once and the stores fall back instead of waiting.
  const redis = config.redisUrl ? new Redis(config.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: false }) : undefined;
  redis?.on('error', (error) => logger.warn({ err: error }, 'redis unavailable'));
  const semantic = new SemanticIndex(logger);
  const services: Services = {
    config,
    logger,
    catalog,
    redis,
    rateLimiter: createRateLimiter({ max: config.rateLimit.max, windowSeconds: config.rateLimit.windowSeconds, redis }),
    listingSearch: createHybridSearch(semantic),
  };
  const signals = createConfiguredSignals(config, logger, redis);
  services.signals = signals;

  const router = new Router();
  for (const module of [...ROUTE_MODULES, ...(options.routes ?? [])]) router.add(module(services));

  let staticFiles: StaticFiles = createStaticFiles(join(options.buildDir, 'site'));
  catalog.onSwap((next) => {
    void semantic.load(next);
    staticFiles = createStaticFiles(join(next.buildDir, 'site'));
  });

  const links = discoveryLinks(config.baseUrl);
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    res.setHeader('API-Version', API_VERSION);
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Expose-Headers', 'API-Version, RateLimit, RateLimit-Policy, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, Search-Mode, Idempotent-Replayed, WWW-Authenticate, ETag');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    const rawUrl = req.url ?? '/';
    const q = rawUrl.indexOf('?');
    const path = q < 0 ? rawUrl : rawUrl.slice(0, q);
    const method = req.method ?? 'GET';
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
      const allow = router.allowed(path);
      res.statusCode = 204;
      res.setHeader('Allow', [...allow, 'OPTIONS'].join(', '));
      res.setHeader('Access-Control-Allow-Methods', [...allow, 'OPTIONS'].join(', '));
      res.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type, API-Version, Idempotency-Key, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Mcp-Method, Last-Event-ID');
      res.setHeader('Access-Control-Max-Age', '86400');
      res.end();
      return;
    }

    const match = router.find(method, path);
    if (match) {
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
    const allow = router.allowed(path);
    if (allow.length > 0) {
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

  const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
    handle(req, res).catch((error: unknown) => {
      const catalogError = toCatalogError(error);
      if (catalogError.status >= 500) logger.error({ err: error, url: req.url, method: req.method }, 'request failed');
      sendError(res, catalogError);
    });
  });
  // A request Node itself rejects (malformed HTTP) still gets the documented error shape.
  server.on('clientError', (error, socket) => {
    if (!socket.writable) return;
    const body = JSON.stringify(new CatalogError('invalid_parameter', 'The request is not valid HTTP.').toBody());
    socket.end(`HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nAPI-Version: ${API_VERSION}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
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
