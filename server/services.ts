// What the composition root builds once and hands to every route module.
import type { Logger } from 'pino';
import type { Redis } from 'ioredis';
import type { Config } from '../src/config.ts';
import type { LiveCatalog, Snapshot } from './catalog/snapshot.ts';
import type { ListingSearch } from './search-runtime/listing-search.ts';
import type { RateLimiter } from './http/rate-limit.ts';
import type { Metrics } from './ops/metrics.ts';
import type { RedisHealth } from './ops/redis-health.ts';
import type { SemanticStatus } from './search-runtime/semantic-index.ts';

/** Search-trend counters (appearances in a first page, opens); absent when counting is off. */
export interface SearchSignals {
  appeared(snapshot: Snapshot, docs: readonly number[], offset: number): void;
  opened(snapshot: Snapshot, doc: number): void;
}

export interface Services {
  config: Config;
  logger: Logger;
  catalog: LiveCatalog;
  rateLimiter: RateLimiter;
  listingSearch: ListingSearch;
  signals?: SearchSignals | undefined;
  /** Shared state (rate limits, idempotency) when REDIS_URL is set; in-memory stores otherwise. */
  redis?: Redis | undefined;
  /** Prometheus counters of this app (GET /metrics); optional so that route modules can be used without one. */
  metrics?: Metrics | undefined;
  /** A first start serves the API while its site stage still renders the pages: until then pages answer 503. */
  site?: { building: boolean } | undefined;
  /** What /readyz reports besides the catalog itself. */
  health?: { redis: RedisHealth; semantic(): SemanticStatus } | undefined;
}
