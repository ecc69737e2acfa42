// Idempotency-Key (SERVICE.md 4.3 rule 2, CONTRACT.md): the same key with the same request within the replay
// window gets the stored response byte for byte with Idempotent-Replayed: true; the same key with another
// request is 422, and while the first is still running 409. Keys are scoped by the caller (endpoint and, for
// JSON-RPC, the method), so one key may be used on two endpoints without colliding.
import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { CatalogError } from '../../src/domain/contract/errors.ts';
import { LIMITS } from '../../src/domain/contract/limits.ts';
import type { PreparedResponse } from '../http/prepared.ts';
import { MemoryIdempotencyStore } from './memory-store.ts';
import { RedisIdempotencyStore } from './redis-store.ts';
import { toStored, type IdempotencyStore } from './store.ts';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
/** Bound of the in-process store: stored responses are small, so this bounds its memory too. */
export const MEMORY_STORE_MAX_ENTRIES = 10_000;
/** A claim outlives any real request by far; it only matters when an instance dies mid-request. */
export const IN_FLIGHT_MS = 60_000;

export function createIdempotencyStore(options: { redis?: Redis | undefined; logger: Logger; maxEntries?: number }): IdempotencyStore {
  const timings = { replayMs: LIMITS.idempotencyKey.replaySeconds * 1000, inFlightMs: IN_FLIGHT_MS };
  const memory = new MemoryIdempotencyStore({ ...timings, maxEntries: options.maxEntries ?? MEMORY_STORE_MAX_ENTRIES });
  return options.redis ? new RedisIdempotencyStore({ ...timings, redis: options.redis, fallback: memory, logger: options.logger }) : memory;
}

/** The Idempotency-Key of a request, or undefined; outside 8-128 characters is a 400 naming the header. */
export function idempotencyKey(headers: IncomingHttpHeaders): string | undefined {
  const raw = headers['idempotency-key'];
  if (raw === undefined) return undefined;
  const value = Array.isArray(raw) ? raw.join(',') : raw;
  const { min, max } = LIMITS.idempotencyKey;
  if (value.length < min || value.length > max || !/^[\x21-\x7e]+$/.test(value)) {
    throw new CatalogError('invalid_parameter', `Header '${IDEMPOTENCY_HEADER}' must be ${min} to ${max} visible ASCII characters.`, {
      resolution: `Send a unique ${min}-${max} character key (a UUID works) or omit the header.`,
    });
  }
  return value;
}

/** A digest of everything that makes two requests "the same" (body and negotiated response form). */
export function fingerprint(...parts: Array<string | Buffer>): string {
  const hash = createHash('sha256');
  for (const part of parts) {
    hash.update(String(Buffer.byteLength(part)));
    hash.update(':');
    hash.update(part);
  }
  return hash.digest('base64url');
}

/** JSON with object keys sorted, so a retry that reorders fields or whitespace is still the same request. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export interface IdempotentRun {
  store: IdempotencyStore;
  /** The client's key; undefined runs the work plainly. */
  key: string | undefined;
  scope: string;
  /** The request's fingerprint, computed only when a key is given (most requests carry none). */
  fingerprint: () => string;
}

export interface IdempotentOutcome {
  response: PreparedResponse;
  replayed: boolean;
}

/** The store key of a client key on one endpoint (and JSON-RPC method). */
export function scopedKey(scope: string, key: string): string {
  return `${scope} ${key}`;
}

/** Runs `work` at most once per scoped key and request; a thrown error frees the key for a retry. */
export async function runIdempotent(run: IdempotentRun, work: () => Promise<PreparedResponse>): Promise<IdempotentOutcome> {
  if (run.key === undefined) return { response: await work(), replayed: false };
  const scoped = scopedKey(run.scope, run.key);
  const requestPrint = run.fingerprint();
  const claim = await run.store.claim(scoped, requestPrint);
  switch (claim.state) {
    case 'mismatch':
      throw new CatalogError(
        'idempotency_key_reused',
        `This ${IDEMPOTENCY_HEADER} was already used with a different request in the last ${LIMITS.idempotencyKey.replaySeconds / 60} minutes.`,
      );
    case 'in_flight':
      throw new CatalogError('idempotency_key_in_flight', `A request with this ${IDEMPOTENCY_HEADER} is still running.`, { headers: { 'Retry-After': '1' } });
    case 'replay': {
      const stored = claim.response;
      return {
        response: {
          status: stored.status,
          contentType: stored.contentType,
          chunks: stored.body === '' ? [] : [stored.body],
          headers: { ...stored.headers, [REPLAYED_HEADER]: 'true' },
        },
        replayed: true,
      };
    }
    case 'acquired':
      break;
  }
  let response: PreparedResponse;
  try {
    response = await work();
  } catch (error) {
    await run.store.release(scoped);
    throw error;
  }
  await run.store.complete(scoped, requestPrint, toStored(response));
  return { response, replayed: false };
}
