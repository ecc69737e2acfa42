// The rebuild's side of searchTrend: the shim's counters of the recent window (appearances in a first page
// of search results, opens), summed per listing and scored with searchTrendScore (src/domain/listing/ranking.ts).
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { searchTrendScore } from '../src/domain/listing/ranking.ts';
import { addUtcDays, utcDay, type SignalCounts } from '../src/signal-stores/counter-store.ts';
import { readSqliteSignalTotals, SIGNALS_FILE } from '../src/signal-stores/sqlite-counter-store.ts';
import { readRedisSignalTotals } from '../src/signal-stores/redis-counter-store.ts';

/** Days of counts a rebuild folds into searchTrend, today included. */
export const SEARCH_TREND_WINDOW_DAYS = 14;

export interface SearchTrendOptions {
  dataDir: string;
  /** Read the counters from Redis (the shims' REDIS_URL) instead of <data>/signals.db. */
  redisUrl?: string | undefined;
  days?: number;
  today?: string;
}

/** Counts per listing id over the window; empty when nothing was counted. */
export async function readSignalWindow(options: SearchTrendOptions): Promise<Map<string, SignalCounts>> {
  const today = options.today ?? utcDay();
  const since = addUtcDays(today, -((options.days ?? SEARCH_TREND_WINDOW_DAYS) - 1));
  if (!options.redisUrl) return readSqliteSignalTotals(join(options.dataDir, SIGNALS_FILE), since);
  const redis = new Redis(options.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 5000 });
  try {
    await redis.connect();
    return await readRedisSignalTotals(redis, since, today);
  } finally {
    redis.disconnect();
  }
}

/** searchTrend per listing id, for buildRuntimeArtifacts; listings never counted are left out (score 0). */
export async function readSearchTrend(options: SearchTrendOptions): Promise<Map<string, number>> {
  const scores = new Map<string, number>();
  for (const [id, counts] of await readSignalWindow(options)) scores.set(id, searchTrendScore(counts));
  return scores;
}
