// The shim's search signals, as app.ts constructs them: off, or counting into Redis (when the shims share
// one) or into <data>/signals.db.
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Redis } from 'ioredis';
import type { Config } from '../../src/config.ts';
import { createSearchSignals, type SearchSignalCounter } from './search-counting.ts';
import { RedisSignalStore } from '../../src/signal-stores/redis-counter-store.ts';
import { SIGNALS_FILE, SqliteSignalStore } from '../../src/signal-stores/sqlite-counter-store.ts';

export { listingPageSlug } from './listing-pages.ts';
export type { SearchSignalCounter } from './search-counting.ts';

export function createConfiguredSignals(config: Config, logger: Logger, redis: Redis | undefined): SearchSignalCounter | undefined {
  if (!config.signals.enabled) return undefined;
  const store = redis ? new RedisSignalStore(redis) : new SqliteSignalStore(join(config.dataDir, SIGNALS_FILE));
  return createSearchSignals({ store, flushSeconds: config.signals.flushSeconds, logger });
}
