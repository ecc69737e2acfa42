// The collector's HTTP client: one place where timeouts, retries and rate limits are decided, so every HTTP
// source (registry, GitHub, installs) behaves the way the public services ask. It never throws: every request
// ends in an answer (any final status, 304 and 404 included) or a failure that says why, and a source turns a
// failure into a clean stop. Rate limits follow octokit/plugin-throttling and GitHub's own guidance: 429, and
// 403 when it carries `retry-after`, `x-ratelimit-remaining: 0` or says "rate limit" (secondary limits), wait for
// `retry-after` (seconds or an HTTP date) or until `x-ratelimit-reset`; a wait longer than `maxWaitMs` is not
// slept (a primary limit can mean an hour) but reported, so the source stops and keeps its last known values.
// Written here rather than with p-retry / undici's RetryAgent: neither retries GitHub's 403 limits, and p-retry
// ignores Retry-After, so the delay had to be computed here anyway.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleepTimer } from 'node:timers/promises';
import type { SourceStats } from './types.ts';

export interface HttpClientOptions {
  /** Counters of the source the client works for: requests, 304s and rate-limit waits are added here. */
  stats: SourceStats;
  /** Per attempt, headers and body together. */
  timeoutMs: number;
  /** Extra attempts after a network error, a timeout or a 5xx. */
  retries: number;
  /** First backoff delay; doubled per attempt up to maxDelayMs (tests set it to a few ms). */
  minDelayMs?: number;
  maxDelayMs?: number;
  /** The longest rate-limit wait that is slept; a longer one ends the request with reason `rate-limit`. */
  maxWaitMs?: number;
  /** Rate-limit waits per request at most (GitHub: "then exponential backoff and give up"). */
  rateLimitRetries?: number;
  /** Sent with every request (User-Agent, Accept, Authorization, API version). */
  headers?: Record<string, string>;
  /** The collection's signal: an abort ends the request at once with reason `aborted`, never retried. */
  signal?: AbortSignal;
  /** Wall clock in ms for `x-ratelimit-reset` and HTTP-date `retry-after` (tests fix it). */
  clock?: () => number;
}

export interface HttpRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

/** A final answer of the server: any status that retrying would not change (2xx, 304, 404, other 4xx). */
export interface HttpAnswer {
  ok: true;
  status: number;
  headers: Headers;
  text: string;
  /** The URL that answered, after redirects (a renamed GitHub repository redirects). */
  url: string;
  redirected: boolean;
}

export type HttpFailureReason = 'network' | 'timeout' | 'server' | 'rate-limit' | 'aborted';

export interface HttpFailure {
  ok: false;
  reason: HttpFailureReason;
  /** The last status seen, when the server answered at all. */
  status?: number;
  message: string;
  /** reason `rate-limit`: how long the limit asked to wait. */
  waitMs?: number;
}

export type HttpOutcome = HttpAnswer | HttpFailure;

export interface HttpClient {
  request(url: string, init?: HttpRequest): Promise<HttpOutcome>;
  /**
   * Waits out a limit a source found in a body (GitHub GraphQL answers 200 with a RATE_LIMITED error):
   * true after the wait, false when the wait exceeds maxWaitMs or the collection was aborted.
   */
  waitForLimit(waitMs: number): Promise<boolean>;
  readonly maxWaitMs: number;
}

export const DEFAULT_MAX_WAIT_MS = 60_000;

/** Knobs a sources-file entry does not carry: tests shrink the delays, the orchestrator may cap the waits. */
export type HttpTuning = Partial<Pick<HttpClientOptions, 'minDelayMs' | 'maxDelayMs' | 'maxWaitMs' | 'clock' | 'timeoutMs'>>;

/** The client of one source: its entry's timeout and retries, the collection's signal, the tuning on top. */
export function sourceClient(
  stats: SourceStats,
  entry: { timeoutSeconds: number; retries: number },
  signal: AbortSignal | undefined,
  headers: Record<string, string>,
  tuning: HttpTuning = {},
): HttpClient {
  const given = Object.fromEntries(Object.entries(tuning).filter(([, value]) => value !== undefined)) as HttpTuning;
  return createHttpClient({ stats, timeoutMs: entry.timeoutSeconds * 1000, retries: entry.retries, signal, headers, ...given });
}
/** GitHub: a secondary limit without retry-after: "wait for at least one minute before retrying". */
const SECONDARY_DEFAULT_MS = 60_000;

/** Milliseconds a `retry-after` value asks for: delay-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value == null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * The wait a rate-limit answer asks for, or undefined when the answer is not a rate limit. A 429 with no hint
 * gets the backoff delay (`fallbackMs`); a 403 counts only with a limit signal, else it is a real refusal.
 */
export function rateLimitWait(status: number, headers: Headers, text: string, now: number, fallbackMs: number): number | undefined {
  if (status !== 429 && status !== 403) return undefined;
  const retryAfter = parseRetryAfter(headers.get('retry-after'), now);
  if (retryAfter !== undefined) return retryAfter;
  const remaining = headers.get('x-ratelimit-remaining');
  const reset = Number(headers.get('x-ratelimit-reset'));
  // Primary limit: wait until the window resets (epoch seconds); a second of slack for clock skew.
  if (remaining === '0' && Number.isFinite(reset) && reset > 0) return Math.max(0, reset * 1000 - now) + 1000;
  if (status === 429) return fallbackMs;
  // GitHub gives a secondary limit without retry-after no other signal than its message (octokit does the same).
  if (/rate limit/i.test(text)) return SECONDARY_DEFAULT_MS;
  return undefined;
}

const errorText = (error: unknown): string => {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message ?? String(error);
};

export function createHttpClient(options: HttpClientOptions): HttpClient {
  const minDelay = options.minDelayMs ?? 500;
  const maxDelay = options.maxDelayMs ?? 30_000;
  const maxWaitMs = options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
  const rateLimitRetries = options.rateLimitRetries ?? 3;
  const clock = options.clock ?? Date.now;
  const { stats, signal } = options;

  // Equal jitter: half fixed, half random, so parallel workers that failed together do not retry together.
  const backoff = (attempt: number) => {
    const full = Math.min(maxDelay, minDelay * 2 ** attempt);
    return full / 2 + (Math.random() * full) / 2;
  };

  const sleep = async (ms: number): Promise<boolean> => {
    if (signal?.aborted) return false;
    try {
      await sleepTimer(ms, undefined, signal ? { signal } : undefined);
      return true;
    } catch {
      return false;
    }
  };

  const waitForLimit = async (waitMs: number): Promise<boolean> => {
    if (waitMs > maxWaitMs) return false;
    stats.rateLimitWaits++;
    return sleep(waitMs);
  };

  const attempt = async (url: string, init: HttpRequest): Promise<HttpOutcome> => {
    let failures = 0;
    let limits = 0;
    const what = `${init.method ?? 'GET'} ${url}`;
    let last: HttpFailure = { ok: false, reason: 'network', message: `${what}: no attempt made` };
    for (;;) {
      if (signal?.aborted) return { ok: false, reason: 'aborted', message: `${what}: aborted` };
      const timeout = AbortSignal.timeout(options.timeoutMs);
      const attemptSignal = signal ? AbortSignal.any([signal, timeout]) : timeout;
      let answer: HttpAnswer | undefined;
      stats.requests++;
      try {
        const response = await fetch(url, {
          method: init.method ?? 'GET',
          headers: { ...options.headers, ...init.headers },
          body: init.body,
          signal: attemptSignal,
          redirect: 'follow',
        });
        // A followed redirect was a request too (GitHub counts it against the limit).
        if (response.redirected) stats.requests++;
        const text = await response.text();
        answer = { ok: true, status: response.status, headers: response.headers, text, url: response.url || url, redirected: response.redirected };
      } catch (error) {
        if (signal?.aborted) return { ok: false, reason: 'aborted', message: `${what}: aborted` };
        const timedOut = timeout.aborted;
        last = {
          ok: false,
          reason: timedOut ? 'timeout' : 'network',
          message: `${what}: ${timedOut ? `no complete answer in ${options.timeoutMs} ms` : errorText(error)}`,
        };
      }
      if (answer) {
        if (answer.status === 304) stats.notModified++;
        const wait = rateLimitWait(answer.status, answer.headers, answer.text, clock(), backoff(limits));
        if (wait !== undefined) {
          const failure: HttpFailure = {
            ok: false,
            reason: 'rate-limit',
            status: answer.status,
            waitMs: wait,
            message: `${what}: rate limited (${answer.status}), asked to wait ${Math.ceil(wait / 1000)} s`,
          };
          if (limits >= rateLimitRetries) return { ...failure, message: `${failure.message}; gave up after ${limits} waits` };
          if (wait > maxWaitMs) return { ...failure, message: `${failure.message}, longer than the ${Math.round(maxWaitMs / 1000)} s allowed` };
          limits++;
          if (!(await waitForLimit(wait))) return { ok: false, reason: 'aborted', message: `${what}: aborted` };
          continue;
        }
        if (answer.status < 500) return answer;
        last = { ok: false, reason: 'server', status: answer.status, message: `${what}: answered ${answer.status}` };
      }
      if (failures >= options.retries) {
        return failures === 0 ? last : { ...last, message: `${last.message} (after ${failures + 1} attempts)` };
      }
      failures++;
      if (!(await sleep(backoff(failures - 1)))) return { ok: false, reason: 'aborted', message: `${what}: aborted` };
    }
  };

  // The promise of never throwing holds even for what the loop did not foresee (a bad URL, a header fetch refuses).
  const request = async (url: string, init: HttpRequest = {}): Promise<HttpOutcome> => {
    try {
      return await attempt(url, init);
    } catch (error) {
      return { ok: false, reason: 'network', message: `${init.method ?? 'GET'} ${url}: ${errorText(error)}` };
    }
  };

  return { request, waitForLimit, maxWaitMs };
}

/** What a conditional request sends back: the validators of the last 200, and optionally what it said. */
export interface Validators {
  etag?: string;
  lastModified?: string;
  /** The figures read with these validators, so a 304 can be answered even without the caller's previous values. */
  value?: unknown;
}

/**
 * ETag / Last-Modified per key (a URL or a repository), kept in a JSON file in the source's state directory.
 * Saved whole to a temp file and renamed, so a collection killed mid-write leaves the previous file intact.
 */
export class ConditionalStore {
  readonly path: string;
  private entries: Map<string, Validators>;
  private dirty = false;

  constructor(path: string) {
    this.path = path;
    this.entries = new Map();
    if (!existsSync(path)) return;
    try {
      const raw = JSON.parse(readFileSync(path, 'utf8')) as Record<string, Validators>;
      if (raw && typeof raw === 'object') this.entries = new Map(Object.entries(raw));
    } catch {
      // An unreadable store only costs full requests: start empty rather than stop the source.
      this.entries = new Map();
    }
  }

  get(key: string): Validators | undefined {
    return this.entries.get(key);
  }

  /** The conditional headers for a key (none when nothing is stored). */
  headers(key: string): Record<string, string> {
    const entry = this.entries.get(key);
    const headers: Record<string, string> = {};
    if (entry?.etag) headers['if-none-match'] = entry.etag;
    if (entry?.lastModified) headers['if-modified-since'] = entry.lastModified;
    return headers;
  }

  /** Keeps the validators of a 200 answer (nothing when it gave none). */
  remember(key: string, headers: Headers, value?: unknown): void {
    const etag = headers.get('etag') ?? undefined;
    const lastModified = headers.get('last-modified') ?? undefined;
    if (!etag && !lastModified) {
      if (this.entries.delete(key)) this.dirty = true;
      return;
    }
    const entry: Validators = {};
    if (etag) entry.etag = etag;
    if (lastModified) entry.lastModified = lastModified;
    if (value !== undefined) entry.value = value;
    this.entries.set(key, entry);
    this.dirty = true;
  }

  delete(key: string): void {
    if (this.entries.delete(key)) this.dirty = true;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Writes the store if it changed; keys sorted so that an unchanged store is a byte-identical file. */
  save(): void {
    if (!this.dirty) return;
    writeJsonAtomic(this.path, Object.fromEntries([...this.entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
    this.dirty = false;
  }
}

/** Writes JSON to a temp file beside the target and renames it over the target. */
export function writeJsonAtomic(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(value, null, 2)}\n`);
  renameSync(temp, path);
}

/** Reads a JSON state file, or undefined when it is absent or unreadable (a fresh start, never a crash). */
export function readJsonState<T>(path: string): T | undefined {
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/** Parses a JSON body; undefined when it is not JSON (a truncated answer). */
export function parseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}
