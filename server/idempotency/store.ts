// The Idempotency-Key store contract. A key is claimed (in flight) before the work runs, then completed with
// the response, which is replayed for the replay window; a failed request releases its claim. Keys arrive
// already scoped (endpoint and JSON-RPC method), so the stores only see opaque strings.
import { textOf, type PreparedResponse } from '../http/prepared.ts';

export interface StoredResponse {
  status: number;
  contentType: string;
  body: string;
  headers: Record<string, string>;
}

export type Claim =
  | { state: 'acquired' }
  | { state: 'replay'; response: StoredResponse }
  | { state: 'in_flight' }
  /** The key was used with a different request. */
  | { state: 'mismatch' };

export interface IdempotencyStore {
  claim(key: string, fingerprint: string): Promise<Claim>;
  complete(key: string, fingerprint: string, response: StoredResponse): Promise<void>;
  release(key: string): Promise<void>;
}

export interface StoreTimings {
  /** How long a completed response is replayed (SERVICE.md section 8: 5 minutes). */
  replayMs: number;
  /** How long a claim blocks the key if its request never finishes (a crashed instance). */
  inFlightMs: number;
}

export function toStored(response: PreparedResponse): StoredResponse {
  return { status: response.status, contentType: response.contentType, body: textOf(response), headers: { ...response.headers } };
}

/** The record both stores keep per key. */
export interface IdempotencyRecord {
  fingerprint: string;
  response?: StoredResponse;
}

export function decide(record: IdempotencyRecord, fingerprint: string): Claim {
  if (record.fingerprint !== fingerprint) return { state: 'mismatch' };
  return record.response ? { state: 'replay', response: record.response } : { state: 'in_flight' };
}
