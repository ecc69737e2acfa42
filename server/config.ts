// The environment, read once at start and validated into one typed object; every variable is in the
// README's configuration table.
import { resolve } from 'node:path';
import { z } from 'zod';
import { LIMITS } from '../src/domain/limits.ts';

const boolish = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const TrustProxy = z
  .string()
  .trim()
  .transform((value, ctx): false | true | number => {
    if (value === '' || value === 'false' || value === '0') return false;
    if (value === 'true') return true;
    if (/^\d+$/.test(value)) return Number(value);
    ctx.addIssue({ code: 'custom', message: 'must be false, true, or the number of trusted proxy hops' });
    return z.NEVER;
  });

const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default('127.0.0.1'),
  CATALOG_DATA_DIR: z.string().default('.catalog'),
  CATALOG_EXPORT: z.string().default('data/listings.jsonl'),
  PUBLIC_BASE_URL: z.url().optional(),
  TRUST_PROXY: TrustProxy.default(false),
  RATE_LIMIT_MAX: z.coerce.number().int().positive().default(LIMITS.rateLimit.max),
  RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().positive().default(LIMITS.rateLimit.windowSeconds),
  REDIS_URL: z.string().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  CATALOG_BUILD_ON_START: boolish.default(true),
});

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  exportPath: string;
  /** Public origin without a trailing slash; never taken from a request's Host header. */
  baseUrl: string;
  /** Whether X-Forwarded-For is believed: false, true (leftmost address) or the number of trusted hops. */
  trustProxy: false | true | number;
  rateLimit: { max: number; windowSeconds: number };
  redisUrl: string | undefined;
  logLevel: string;
  buildOnStart: boolean;
}

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const parsed = EnvSchema.safeParse(Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== '')));
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    throw new ConfigError(`Invalid configuration: ${problems}`);
  }
  const e = parsed.data;
  const port = overrides.port ?? e.PORT;
  const config: Config = {
    port,
    host: e.HOST,
    dataDir: resolve(e.CATALOG_DATA_DIR),
    exportPath: resolve(e.CATALOG_EXPORT),
    baseUrl: (e.PUBLIC_BASE_URL ?? `http://localhost:${port}`).replace(/\/+$/, ''),
    trustProxy: e.TRUST_PROXY,
    rateLimit: { max: e.RATE_LIMIT_MAX, windowSeconds: e.RATE_LIMIT_WINDOW_SECONDS },
    redisUrl: e.REDIS_URL,
    logLevel: e.LOG_LEVEL,
    buildOnStart: e.CATALOG_BUILD_ON_START,
    ...overrides,
  };
  return config;
}
