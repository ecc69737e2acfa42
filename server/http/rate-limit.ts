// The per-client request budget of SERVICE.md section 8, with rate-limiter-flexible: its memory store by
// default, Redis when REDIS_URL is set so that several shims share one budget. If Redis fails, the memory
// limiter stands in (fail-open on the shared count, never on the limit itself).
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  reset: number;
}

export interface RateLimiter {
  /** Takes `points` (default 1) from the client's budget: a JSON-RPC batch costs one per entry. */
  consume(key: string, points?: number): Promise<RateDecision>;
  headers(decision: RateDecision): Record<string, string | number>;
}

export function createRateLimiter(options: { max: number; windowSeconds: number; redis?: Redis | undefined; keyPrefix?: string }): RateLimiter {
  const memory = new RateLimiterMemory({ points: options.max, duration: options.windowSeconds });
  const limiter: RateLimiterAbstract = options.redis
    ? new RateLimiterRedis({
        storeClient: options.redis,
        points: options.max,
        duration: options.windowSeconds,
        keyPrefix: options.keyPrefix ?? 'catalog:rl',
        insuranceLimiter: memory,
      })
    : memory;
  const policy = `${options.max};w=${options.windowSeconds}`;

  const decide = (res: RateLimiterRes, allowed: boolean): RateDecision => ({
    allowed,
    limit: options.max,
    remaining: Math.max(0, res.remainingPoints),
    reset: Math.max(0, Math.ceil(res.msBeforeNext / 1000)),
  });

  return {
    // Promise handlers rather than an async function: this runs on every request, and each await is a tick.
    consume(key, points = 1) {
      return limiter.consume(key, points).then(
        (res) => decide(res, true),
        (rejection: unknown) => {
          if (rejection instanceof RateLimiterRes) return decide(rejection, false);
          throw rejection;
        },
      );
    },
    headers(decision) {
      return {
        'RateLimit-Policy': policy,
        RateLimit: `limit=${decision.limit}, remaining=${decision.remaining}, reset=${decision.reset}`,
        'RateLimit-Limit': decision.limit,
        'RateLimit-Remaining': decision.remaining,
        'RateLimit-Reset': decision.reset,
      };
    },
  };
}
