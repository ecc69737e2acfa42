// The shared Idempotency-Key store for several shims (REDIS_URL, the same switch as the rate limiter). A claim is
// SET NX PX, so exactly one instance wins a key; the response replaces the claim with its own expiry. If Redis
// fails, the in-process store stands in for that call: keys are then only deduplicated per instance, never lost.
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { type MemoryIdempotencyStore } from './memory-store.ts';
import { decide, type Claim, type IdempotencyRecord, type IdempotencyStore, type StoreTimings, type StoredResponse } from './store.ts';

export const REDIS_KEY_PREFIX = 'catalog:idem:';

/** Where a scoped key lives in Redis (exported so operators and tests can find it). */
export function redisKey(key: string): string {
  return REDIS_KEY_PREFIX + key;
}

/** Deletes the key only while it still holds this claim, never a response or someone else's claim. */
const RELEASE_SCRIPT = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0";

export interface RedisStoreOptions extends StoreTimings {
  redis: Redis;
  fallback: MemoryIdempotencyStore;
  logger: Logger;
}

export class RedisIdempotencyStore implements IdempotencyStore {
  private readonly options: RedisStoreOptions;

  constructor(options: RedisStoreOptions) {
    this.options = options;
  }

  async claim(key: string, fingerprint: string): Promise<Claim> {
    const { redis, inFlightMs } = this.options;
    try {
      // Two rounds: the key may expire between a lost SET NX and the GET that reads it.
      for (let attempt = 0; attempt < 2; attempt++) {
        const set = await redis.set(redisKey(key), claimValue(fingerprint), 'PX', inFlightMs, 'NX');
        if (set === 'OK') return { state: 'acquired' };
        const current = await redis.get(redisKey(key));
        if (current !== null) return decide(parseRecord(current), fingerprint);
      }
      return { state: 'in_flight' };
    } catch (error) {
      this.degraded(error);
      return this.options.fallback.claim(key, fingerprint);
    }
  }

  async complete(key: string, fingerprint: string, response: StoredResponse): Promise<void> {
    const record: IdempotencyRecord = { fingerprint, response };
    try {
      await this.options.redis.set(redisKey(key), JSON.stringify(record), 'PX', this.options.replayMs);
    } catch (error) {
      this.degraded(error);
      await this.options.fallback.complete(key, fingerprint, response);
    }
  }

  async release(key: string): Promise<void> {
    await this.options.fallback.release(key);
    try {
      const current = await this.options.redis.get(redisKey(key));
      if (current !== null && parseRecord(current).response === undefined) {
        await this.options.redis.eval(RELEASE_SCRIPT, 1, redisKey(key), current);
      }
    } catch (error) {
      this.degraded(error);
    }
  }

  private degraded(error: unknown): void {
    this.options.logger.warn({ err: error }, 'idempotency store: redis unavailable, using the in-process store');
  }
}

function claimValue(fingerprint: string): string {
  return JSON.stringify({ fingerprint } satisfies IdempotencyRecord);
}

function parseRecord(text: string): IdempotencyRecord {
  const value = JSON.parse(text) as IdempotencyRecord;
  if (typeof value?.fingerprint !== 'string') throw new Error('idempotency record without a fingerprint');
  return value;
}
