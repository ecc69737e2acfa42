// Search-trend counters in Redis, for several shims behind one balancer: one hash per day and kind
// (catalog:signals:<kind>:<day>, field = listing id), incremented with HINCRBY and expiring on their own.
import type { Redis } from 'ioredis';
import { addUtcDays, SIGNAL_DAYS_KEPT, type DailyCounts, type SignalCounts, type SignalStore } from './counter-store.ts';

export const SIGNAL_KEY_PREFIX = 'catalog:signals';
const KINDS = ['appeared', 'opened'] as const;

export const signalKey = (kind: (typeof KINDS)[number], day: string) => `${SIGNAL_KEY_PREFIX}:${kind}:${day}`;

/** Summed counts per listing id from `sinceDay` through `untilDay`, read with one HGETALL per day and kind. */
export async function readRedisSignalTotals(redis: Redis, sinceDay: string, untilDay: string): Promise<Map<string, SignalCounts>> {
  const totals = new Map<string, SignalCounts>();
  const pipeline = redis.pipeline();
  const asked: Array<(typeof KINDS)[number]> = [];
  for (let day = sinceDay; day <= untilDay; day = addUtcDays(day, 1)) {
    for (const kind of KINDS) {
      pipeline.hgetall(signalKey(kind, day));
      asked.push(kind);
    }
  }
  const results = (await pipeline.exec()) ?? [];
  results.forEach(([error, value], i) => {
    if (error) throw error;
    const kind = asked[i]!;
    for (const [id, n] of Object.entries(value as Record<string, string>)) {
      const entry = totals.get(id) ?? { appeared: 0, opened: 0 };
      entry[kind] += Number(n);
      totals.set(id, entry);
    }
  });
  return totals;
}

export class RedisSignalStore implements SignalStore {
  private readonly redis: Redis;

  constructor(redis: Redis) {
    this.redis = redis;
  }

  async add(counts: DailyCounts): Promise<void> {
    if (counts.size === 0) return;
    const pipeline = this.redis.pipeline();
    for (const [day, byId] of counts) {
      for (const kind of KINDS) {
        const key = signalKey(kind, day);
        let any = false;
        for (const [id, c] of byId) {
          if (c[kind] === 0) continue;
          pipeline.hincrby(key, id, c[kind]);
          any = true;
        }
        if (any) pipeline.expire(key, (SIGNAL_DAYS_KEPT + 1) * 86_400);
      }
    }
    const results = (await pipeline.exec()) ?? [];
    const failed = results.find(([error]) => error);
    if (failed) throw failed[0];
  }

  totals(sinceDay: string): Promise<Map<string, SignalCounts>> {
    return readRedisSignalTotals(this.redis, sinceDay, new Date().toISOString().slice(0, 10));
  }

  async close(): Promise<void> {
    // The connection belongs to the app, which closes it after the last flush.
  }
}
