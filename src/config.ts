// The environment, read once at start and validated into one typed object; every variable is in the
// README's configuration table.
import { resolve } from 'node:path';
import { z } from 'zod';
import { LIMITS } from './domain/contract/limits.ts';

const boolish = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => v === 'true' || v === '1' || v === 'yes');

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

/** Signature algorithms a staff JWT may use; `none` is never one of them. */
export const STAFF_JWT_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
  'HS256',
  'HS384',
  'HS512',
] as const;
export type StaffJwtAlgorithm = (typeof STAFF_JWT_ALGORITHMS)[number];
const DEFAULT_ASYMMETRIC_ALGORITHMS: StaffJwtAlgorithm[] = ['RS256', 'ES256', 'EdDSA'];
const isHmac = (alg: string) => alg.startsWith('HS');

const PORT_MESSAGE = 'must be a port number from 0 to 65535 (0 picks a free one), e.g. PORT=8080';

const EnvSchema = z.object({
  // One message for every bad value, with the fix: "abc", "80.5" and "99999" are all not a port.
  PORT: z.coerce.number({ error: PORT_MESSAGE }).int({ error: PORT_MESSAGE }).min(0, { error: PORT_MESSAGE }).max(65535, { error: PORT_MESSAGE }).default(8080),
  HOST: z.string().default('127.0.0.1'),
  CATALOG_DATA_DIR: z.string().default('.catalog'),
  CATALOG_EXPORT: z.string().default('data/listings.jsonl'),
  PUBLIC_BASE_URL: z.url().optional(),
  TRUST_PROXY: TrustProxy.default(false),
  RATE_LIMIT_MAX: z.coerce.number().int().positive().default(LIMITS.rateLimit.max),
  RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().positive().default(LIMITS.rateLimit.windowSeconds),
  REDIS_URL: z.string().optional(),
  CATALOG_EMBEDDING_MODEL_DIR: z.string().trim().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  CATALOG_BUILD_ON_START: boolish.default(true),
  SEARCH_THREAD: boolish.default(true),
  STAFF_JWT_ISSUER: z.string().trim().optional(),
  STAFF_JWT_AUDIENCE: z.string().trim().optional(),
  STAFF_JWT_PUBLIC_KEY: z.string().optional(),
  STAFF_JWT_JWKS: z.string().trim().optional(),
  STAFF_JWT_SECRET: z.string().optional(),
  STAFF_JWT_ALGORITHMS: z
    .string()
    .transform((value) =>
      value
        .split(',')
        .map((alg) => alg.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.enum(STAFF_JWT_ALGORITHMS, { message: `each must be one of ${STAFF_JWT_ALGORITHMS.join(', ')}` })).min(1))
    .optional(),
  STAFF_ROLE_CLAIM: z.string().trim().min(1).default('roles'),
  STAFF_ROLE: z.string().trim().min(1).default('staff'),
  STAFF_CLOCK_SKEW_SECONDS: z.coerce.number().int().min(0).max(300).default(30),
  SEARCH_SIGNALS: z
    .enum(['on', 'off', 'true', 'false', '1', '0'])
    .transform((v) => v === 'on' || v === 'true' || v === '1')
    .default(true),
  SIGNALS_FLUSH_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
  HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
  HTTP_BODY_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  HTTP_IDLE_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(120_000),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(65_000),
  SSE_KEEP_ALIVE_SECONDS: z.coerce.number().int().min(1).max(3600).default(15),
  SSE_MAX_LIFETIME_SECONDS: z.coerce.number().int().min(1).max(86_400).default(1800),
  METRICS_PUBLIC: boolish.default(false),
});

/** How staff Bearer JWTs are verified. No key source at all means every staff token is refused. */
export interface StaffAuthConfig {
  /** Where the verification key comes from; exactly one source, or none. */
  key: { kind: 'none' } | { kind: 'public-key'; value: string } | { kind: 'jwks'; value: string } | { kind: 'secret'; value: string };
  issuer: string | undefined;
  /** Expected `aud`; undefined means the public base URL (the resource these tokens are for). */
  audience: string | undefined;
  /** HS* only with a secret, never HS* with a public key or JWKS: an HS/RS confusion needs both. */
  algorithms: StaffJwtAlgorithm[];
  roleClaim: string;
  role: string;
  clockSkewSeconds: number;
}

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
  /** The operator's sentence-embedding model (Transformers.js layout) the build embeds with and copies into the build for the shim; undefined: the committed encoder. */
  embeddingModelDir: string | undefined;
  logLevel: string;
  buildOnStart: boolean;
  /** Keyword searches run in a worker thread (server/search-runtime/keyword-thread.ts); false: on the main thread. */
  searchThread: boolean;
  staffAuth: StaffAuthConfig;
  /** searchTrend counters: appearances in first pages and opens, flushed every flushSeconds. */
  signals: { enabled: boolean; flushSeconds: number };
  /** Slow-client bounds: headers, the whole request, a body once its handler reads it, socket inactivity, keep-alive. */
  timeouts: { headersMs: number; requestMs: number; bodyMs: number; idleMs: number; keepAliveMs: number };
  /** The MCP SSE handshake stream: keep-alive interval and the age at which the server ends it. */
  sse: { keepAliveSeconds: number; maxLifetimeSeconds: number };
  /** GET /metrics without a staff token (true), or for staff Bearer JWTs only (false). */
  metricsPublic: boolean;
}

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const parsed = EnvSchema.safeParse(Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== '')));
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    throw new ConfigError(`Invalid configuration: ${problems}`);
  }
  const e = parsed.data;
  const staffAuth = staffAuthConfig(e);
  if (typeof staffAuth === 'string') throw new ConfigError(`Invalid configuration: ${staffAuth}`);
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
    embeddingModelDir: e.CATALOG_EMBEDDING_MODEL_DIR || undefined,
    logLevel: e.LOG_LEVEL,
    buildOnStart: e.CATALOG_BUILD_ON_START,
    searchThread: e.SEARCH_THREAD,
    staffAuth,
    signals: { enabled: e.SEARCH_SIGNALS, flushSeconds: e.SIGNALS_FLUSH_SECONDS },
    timeouts: {
      // Node requires the headers timeout not to exceed the request timeout.
      headersMs: Math.min(e.HTTP_HEADERS_TIMEOUT_MS, e.HTTP_REQUEST_TIMEOUT_MS),
      requestMs: e.HTTP_REQUEST_TIMEOUT_MS,
      bodyMs: e.HTTP_BODY_TIMEOUT_MS,
      idleMs: e.HTTP_IDLE_TIMEOUT_MS,
      keepAliveMs: e.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    },
    sse: { keepAliveSeconds: e.SSE_KEEP_ALIVE_SECONDS, maxLifetimeSeconds: e.SSE_MAX_LIFETIME_SECONDS },
    metricsPublic: e.METRICS_PUBLIC,
    ...overrides,
  };
  return config;
}

/** The cross-field rules of the STAFF_* variables; a string is the readable reason they are refused. */
function staffAuthConfig(e: z.infer<typeof EnvSchema>): StaffAuthConfig | string {
  const sources = [
    e.STAFF_JWT_PUBLIC_KEY && { kind: 'public-key' as const, value: e.STAFF_JWT_PUBLIC_KEY },
    e.STAFF_JWT_JWKS && { kind: 'jwks' as const, value: e.STAFF_JWT_JWKS },
    e.STAFF_JWT_SECRET && { kind: 'secret' as const, value: e.STAFF_JWT_SECRET },
  ].filter((source): source is Exclude<typeof source, string | undefined> => typeof source === 'object');
  if (sources.length > 1) return 'set only one of STAFF_JWT_PUBLIC_KEY, STAFF_JWT_JWKS and STAFF_JWT_SECRET';
  const key = sources[0] ?? { kind: 'none' as const };
  let algorithms: StaffJwtAlgorithm[];
  if (key.kind === 'secret') {
    // RFC 7518 3.2: an HMAC key must be at least as long as the hash output.
    if (Buffer.byteLength(key.value) < 32) return 'STAFF_JWT_SECRET: must be at least 32 bytes';
    algorithms = e.STAFF_JWT_ALGORITHMS ?? ['HS256'];
    if (!algorithms.every(isHmac)) return 'STAFF_JWT_ALGORITHMS: with STAFF_JWT_SECRET only HS256, HS384 and HS512 are allowed';
  } else {
    algorithms = e.STAFF_JWT_ALGORITHMS ?? DEFAULT_ASYMMETRIC_ALGORITHMS;
    if (algorithms.some(isHmac)) return 'STAFF_JWT_ALGORITHMS: HS* algorithms need STAFF_JWT_SECRET and cannot be used with a public key or JWKS';
  }
  if (key.kind !== 'none' && !e.STAFF_JWT_ISSUER) return 'STAFF_JWT_ISSUER: required when a staff JWT key is configured';
  return {
    key,
    issuer: e.STAFF_JWT_ISSUER,
    audience: e.STAFF_JWT_AUDIENCE,
    algorithms,
    roleClaim: e.STAFF_ROLE_CLAIM,
    role: e.STAFF_ROLE,
    clockSkewSeconds: e.STAFF_CLOCK_SKEW_SECONDS,
  };
}
