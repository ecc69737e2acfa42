// SERVICE.md section 8, in one place: validation, the OpenAPI document and the docs pages read these.
export const LIMITS = {
  rateLimit: { max: 120, windowSeconds: 60 },
  pageSize: { min: 1, max: 2000, default: 20 },
  batchIds: 25,
  q: 128,
  semantic: 256,
  types: 64,
  category: 128,
  owner: 128,
  id: { min: 1, max: 256 },
  ask: 256,
  idempotencyKey: { min: 8, max: 128, replaySeconds: 300 },
  bodyBytes: 64 * 1024,
  /** A JSON-RPC batch (MCP 2025-03-26): entries, and bytes of all its answers together. */
  jsonRpcBatch: { entries: 20, responseBytes: 1024 * 1024 },
} as const;
