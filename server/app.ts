// The composition root: constructs every store, cache, session table and server once, assembles the handler
// table and the route table from it, and wires the pipeline to node:http. Nothing else constructs shared state.
import type { AddressInfo } from 'node:net';
import { existsSync } from 'node:fs';
import type { Server } from 'node:http';
import { pino, type Logger } from 'pino';
import type * as IORedis from 'ioredis';
import type { Redis } from 'ioredis';
import type { Config } from '../src/config.ts';
import { lazyModule } from '../src/lazy-module.ts';
import { createStaffGuard } from './auth/staff-guard.ts';
import { LiveCatalog, loadSnapshot } from './catalog/snapshot.ts';
import { GrowingStaticFiles } from './http/static-files.ts';
import { inProcessFetch } from './http/in-process.ts';
import { createNodeServer } from './http/node-adapter.ts';
import { createPipeline, type Pipeline } from './http/request-pipeline.ts';
import { createRateLimiter, type RateLimiter } from './http/rate-limit.ts';
import { Router } from './http/router.ts';
import { createIdempotencyStore } from './idempotency/idempotency.ts';
import { SseSessions } from './mcp/sse-sessions.ts';
import { createMetrics } from './ops/metrics.ts';
import { watchRedis } from './ops/redis-health.ts';
import { createHandlers } from './routes/index.ts';
import { rememberedSearch } from './search-runtime/remembered-search.ts';
import { distinctSearch } from './search-runtime/folded-search.ts';
import { createHybridSearch } from './search-runtime/hybrid-search.ts';
import { KeywordThread } from './search-runtime/keyword-thread.ts';
import { SemanticIndex } from './search-runtime/semantic-index.ts';
import { createConfiguredSignals } from './search-counters/index.ts';
import type { Services } from './services.ts';

export interface App {
  server: Server;
  services: Services;
  router: Router;
  /** Every request's path through the shim, without a socket. */
  pipeline: Pipeline;
  /** The pipeline as a fetch function (in-process: no socket, same answers). */
  fetch(input: string, init?: RequestInit): Promise<Response>;
  listen(): Promise<AddressInfo>;
  close(): Promise<void>;
  /** The served snapshot's embeddings: loaded in the background once listening, and after every swap. */
  semantic: SemanticIndex;
  /** Switches to another build directory (after a rebuild); the old one keeps serving if it fails to load. */
  reload(buildDir: string): void;
  /**
   * Follows a rebuild under way (`build` is preparableBuild's answer, polled): loads its runtime once complete, ahead of
   * the switch, and forgets one loaded ahead whose build was removed (it failed).
   */
  prepare(build: string | undefined): void;
  /** The first build has every page: serve them (`entries`, the complete names at the top of its site) as it goes on. */
  pagesReady(buildDir: string, entries: string[]): void;
  /** The first build has ended: serve its whole site. */
  siteBuilt(buildDir: string): void;
}

export interface AppOptions {
  buildDir: string;
  logger?: Logger;
  /** The build's site is still being rendered (a first start): pages answer 503 until siteBuilt. */
  siteBuilding?: boolean;
}

/** ioredis, for a deployment that names a Redis: its module graph slows a start that does not use it. */
const ioredis = lazyModule<typeof IORedis>('ioredis', import.meta.url);

function connectRedis(url: string): Redis {
  const { Redis: Client } = ioredis();
  // No offline queue: when Redis is down, calls fail at once and the stores fall back instead of waiting.
  return new Client(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: false });
}

export function createApp(config: Config, options: AppOptions): App {
  const logger = options.logger ?? pino({ level: config.logLevel, base: undefined });
  /** A build whose runtime failed to load ahead of its switch: not tried again before it (App.prepare). */
  let refusedAhead: string | undefined;
  const catalog = new LiveCatalog(loadSnapshot(options.buildDir, { siteInProgress: options.siteBuilding === true }));
  const redis = config.redisUrl ? connectRedis(config.redisUrl) : undefined;
  const metrics = createMetrics();
  const redisHealth = watchRedis(redis, logger, metrics);
  const semantic = new SemanticIndex(logger);
  const keywords = config.searchThread
    ? new KeywordThread({ onError: (error) => logger.error({ err: error }, 'the keyword worker failed; searches run on the main thread until another starts') })
    : undefined;
  const limiter = createRateLimiter({ max: config.rateLimit.max, windowSeconds: config.rateLimit.windowSeconds, redis });
  // Which store decided: Redis while it is up, the per-process insurance limiter while it is not.
  const rateLimiter: RateLimiter = {
    consume(key, points) {
      return limiter.consume(key, points).then((decision) => {
        metrics.rateLimit(decision.allowed, redisHealth.state === 'up' ? 'redis' : 'memory');
        return decision;
      });
    },
    headers: (decision) => limiter.headers(decision),
  };
  const services: Services = {
    config,
    logger,
    catalog,
    redis,
    rateLimiter,
    listingSearch: rememberedSearch(distinctSearch(createHybridSearch(semantic, { keywords }))),
    metrics,
    health: { redis: redisHealth, semantic: () => semantic.status },
    site: { building: options.siteBuilding === true },
  };
  const signals = createConfiguredSignals(config, logger, redis);
  services.signals = signals;

  const staffGuard = createStaffGuard(services);
  const router = new Router(
    createHandlers(services, {
      staffGuard,
      idempotency: createIdempotencyStore({ redis, logger }),
      sessions: new SseSessions(),
    }),
  );
  // The semantic index follows the build; everything else derived from a build belongs to its snapshot.
  catalog.onSwap((next) => void semantic.load(next));
  const pipeline = createPipeline({ services, catalog, router, logger });
  const server = createNodeServer({ config, pipeline, logger, metrics });

  return {
    server,
    services,
    router,
    pipeline,
    fetch: inProcessFetch(pipeline),
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
      await keywords?.close();
      catalog.current.close();
      redis?.disconnect();
    },
    reload(buildDir) {
      const ahead = catalog.prepared === buildDir;
      const started = performance.now();
      catalog.swap(buildDir);
      logger.info({ buildDir, loadedAhead: ahead, switchMs: Math.round(performance.now() - started) }, 'switched to a new build');
    },
    prepare(build) {
      const held = catalog.prepared;
      if (held !== undefined && held !== build && !existsSync(held)) {
        catalog.drop();
        logger.info({ buildDir: held }, 'the build loaded ahead was removed before its switch; forgotten');
      }
      if (build === undefined || build === refusedAhead) return;
      const started = performance.now();
      try {
        if (catalog.prepare(build))
          logger.info({ buildDir: build, loadMs: Math.round(performance.now() - started) }, 'loaded the next build ahead of its switch');
      } catch (error) {
        // Tried once: the switch will load it again, and say so if it still cannot.
        refusedAhead = build;
        logger.warn({ err: error, buildDir: build }, 'the next build could not be loaded ahead of its switch');
      }
    },
    pagesReady(buildDir, entries) {
      const { files } = catalog.current;
      if (catalog.current.buildDir !== buildDir || !(files instanceof GrowingStaticFiles)) return;
      files.pagesReady(entries);
      services.site = { building: false };
      logger.info({ buildDir }, 'the pages are rendered: they answer while the build goes on');
    },
    siteBuilt(buildDir) {
      // The same build (its runtime is what the API already answers from): only its static files are read anew.
      const { files } = catalog.current;
      if (catalog.current.buildDir === buildDir && files instanceof GrowingStaticFiles) files.finished();
      else catalog.swap(buildDir);
      services.site = { building: false };
      logger.info({ buildDir }, 'the site is built: every page answers');
    },
  };
}
