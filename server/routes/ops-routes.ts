// /healthz, /readyz and /metrics: what a load balancer, an orchestrator and Prometheus ask the shim.
import { basename } from 'node:path';
import type { StaffGuard } from '../auth/staff-guard.ts';
import { json, type HandlersFor } from '../http/handler.ts';
import type { Services } from '../services.ts';

/** The body of /readyz, also what the proof scripts poll. */
export function readiness(services: Services): { status: 'ready' | 'degraded' | 'not_ready'; build: string; checks: Record<string, Record<string, unknown>> } {
  const current = services.catalog.current;
  const listings = current.store.count;
  const semantic = services.health?.semantic() ?? 'unavailable';
  const redis = services.health?.redis;
  const checks = {
    artifacts: { ok: listings > 0, listings, lastUpdated: current.store.manifest.lastUpdated },
    semantic: { ok: semantic === 'ready', state: semantic },
    redis: redis
      ? { ok: redis.state !== 'down', state: redis.state, since: new Date(redis.since).toISOString(), outages: redis.outages }
      : { ok: true, state: 'unconfigured' },
  };
  const status = !checks.artifacts.ok ? 'not_ready' : checks.semantic.ok && checks.redis.ok ? 'ready' : 'degraded';
  return { status, build: basename(current.buildDir), checks };
}

export function opsHandlers(services: Services, guard: StaffGuard): HandlersFor<'getHealth' | 'getReadiness' | 'getMetrics'> {
  return {
    getHealth: () => json(200, { status: 'ok' }, { 'Cache-Control': 'no-store' }),
    getReadiness: () => {
      const body = readiness(services);
      return json(body.status === 'not_ready' ? 503 : 200, body, { 'Cache-Control': 'no-store' });
    },
    getMetrics: async (ctx) => {
      if (!services.config.metricsPublic) await guard.requireStaff(ctx);
      const metrics = services.metrics;
      if (!metrics) return json(200, '', { 'Cache-Control': 'no-store' }, 'text/plain; version=0.0.4; charset=utf-8');
      const { contentType, body } = await metrics.render();
      return json(200, body, { 'Cache-Control': 'no-store' }, contentType);
    },
  };
}
