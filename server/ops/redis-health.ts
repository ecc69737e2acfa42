// Whether the shared Redis is reachable, told to an operator: one warning when it goes away (the rate limit then
// counts per process and idempotency keys are not shared), one info line when it is back, the metric
// catalog_redis_up and the redis check of /readyz. ioredis reports an error per reconnect attempt; only the
// transitions are logged, so an outage is one line, not one a second.
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Metrics, RedisState } from './metrics.ts';

export interface RedisHealth {
  readonly state: RedisState;
  /** When the current state began (ms since the epoch). */
  readonly since: number;
  /** Outages seen since start. */
  readonly outages: number;
}

export function watchRedis(redis: Redis | undefined, logger: Logger, metrics: Metrics): RedisHealth {
  const health = { state: 'unconfigured' as RedisState, since: Date.now(), outages: 0 };
  if (!redis) return health;
  // undefined until the first event: the state is reported down (not yet reachable), but nothing is logged yet.
  let known: 'up' | 'down' | undefined;
  const set = (state: 'up' | 'down', error?: unknown) => {
    if (known === state) return;
    const was = known;
    known = state;
    health.state = state;
    health.since = Date.now();
    metrics.redisState(state);
    if (state === 'down') {
      health.outages++;
      logger.warn(
        { err: error, degraded: 'redis' },
        'redis unavailable: rate limits fall back to per-process memory, idempotency keys and search counters are not shared',
      );
    } else if (was === 'down') {
      logger.info({ degraded: false }, 'redis reachable again: shared rate limits and idempotency resume');
    }
  };
  // Down until the first ready: a shim that starts while Redis is away is degraded from the start.
  metrics.redisState('down');
  if (redis.status === 'ready') set('up');
  else health.state = 'down';
  redis.on('ready', () => set('up'));
  redis.on('error', (error: unknown) => set('down', error));
  redis.on('close', () => set('down'));
  redis.on('end', () => set('down'));
  return health;
}
