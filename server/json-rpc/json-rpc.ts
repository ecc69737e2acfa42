// JSON-RPC 2.0 for the MCP and A2A endpoints: the named error codes, envelope classification, a method table
// dispatcher and the one mapping of the catalog's error vocabulary onto JSON-RPC errors.
import type { z } from 'zod';
import type { Logger } from 'pino';
import { CatalogError, type ErrorCode } from '../../src/domain/contract/errors.ts';
import { LIMITS } from '../../src/domain/contract/limits.ts';

/** Every JSON-RPC error code the shim sends, by name; handlers refer to names, never to numbers. */
export const JSON_RPC_CODES = {
  // JSON-RPC 2.0 section 5.1.
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  // MCP 2026-07-28 (the range -32020..-32099 is reserved for MCP).
  headerMismatch: -32020,
  unsupportedProtocolVersion: -32022,
  // A2A (0.3 and 1.0 share them).
  taskNotFound: -32001,
  pushNotificationNotSupported: -32003,
  unsupportedOperation: -32004,
} as const;

export type JsonRpcErrorName = keyof typeof JSON_RPC_CODES;
export type JsonRpcId = string | number;

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  /** Absent on a notification. */
  id?: JsonRpcId;
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export type JsonRpcResponse = { jsonrpc: '2.0'; id: JsonRpcId; result: unknown } | { jsonrpc: '2.0'; id: JsonRpcId | null; error: JsonRpcErrorObject };

/** The one throwable of a JSON-RPC method: a named code, a message and optional data. */
export class RpcError extends Error {
  readonly errorName: JsonRpcErrorName;
  readonly data: unknown;
  constructor(name: JsonRpcErrorName, message: string, data?: unknown) {
    super(message);
    this.name = 'RpcError';
    this.errorName = name;
    this.data = data;
  }
  get code(): number {
    return JSON_RPC_CODES[this.errorName];
  }
  toObject(): JsonRpcErrorObject {
    return this.data === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, data: this.data };
  }
}

/** The catalog's error codes as JSON-RPC errors (SERVICE.md section 7 mapped once for this transport). */
const FROM_CATALOG: Record<ErrorCode, JsonRpcErrorName> = {
  invalid_parameter: 'invalidParams',
  invalid_body: 'invalidParams',
  unsupported_api_version: 'invalidRequest',
  authorization_server_not_offered: 'invalidRequest',
  unauthorized: 'invalidRequest',
  not_found: 'invalidParams',
  gone: 'invalidParams',
  method_not_allowed: 'methodNotFound',
  idempotency_key_in_flight: 'invalidRequest',
  payload_too_large: 'invalidRequest',
  request_timeout: 'invalidRequest',
  unsupported_media_type: 'invalidRequest',
  idempotency_key_reused: 'invalidRequest',
  rate_limited: 'internalError',
  internal_error: 'internalError',
  service_unavailable: 'internalError',
};

/** Any failure → an RpcError; unknown errors are logged and answered without internals. */
export function toRpcError(error: unknown, logger: Logger): RpcError {
  if (error instanceof RpcError) return error;
  if (error instanceof CatalogError) {
    return new RpcError(FROM_CATALOG[error.code], error.message, { code: error.code, resolution: error.resolution });
  }
  logger.error({ err: error }, 'json-rpc method failed');
  return new RpcError('internalError', 'Internal error');
}

export function resultResponse(id: JsonRpcId, result: unknown): JsonRpcResponse {
  return { jsonrpc: '2.0', id, result };
}

export function errorResponse(id: JsonRpcId | null, error: RpcError): JsonRpcResponse {
  return { jsonrpc: '2.0', id, error: error.toObject() };
}

export type Classified =
  | { kind: 'request'; request: JsonRpcRequest & { id: JsonRpcId } }
  | { kind: 'notification'; request: JsonRpcRequest }
  /** A response or error the client sent back (Streamable HTTP allows it); there is nothing to answer. */
  | { kind: 'response' }
  | { kind: 'invalid'; id: JsonRpcId | null; error: RpcError };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isId = (value: unknown): value is JsonRpcId => typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));

/** Sorts one decoded message into request, notification, client response or invalid (JSON-RPC 2.0 section 4). */
export function classify(message: unknown): Classified {
  if (!isObject(message)) return { kind: 'invalid', id: null, error: new RpcError('invalidRequest', 'A JSON-RPC message must be an object.') };
  const id = isId(message.id) ? message.id : null;
  if (message.jsonrpc !== '2.0') return { kind: 'invalid', id, error: new RpcError('invalidRequest', 'jsonrpc must be "2.0".') };
  if (message.method === undefined && 'id' in message && ('result' in message || 'error' in message)) return { kind: 'response' };
  if (typeof message.method !== 'string' || message.method === '')
    return { kind: 'invalid', id, error: new RpcError('invalidRequest', 'method must be a non-empty string.') };
  if ('id' in message && !isId(message.id)) return { kind: 'invalid', id: null, error: new RpcError('invalidRequest', 'id must be a string or a number.') };
  if (message.params !== undefined && !isObject(message.params))
    return { kind: 'invalid', id, error: new RpcError('invalidParams', 'params must be an object.') };
  const request = message as unknown as JsonRpcRequest;
  return 'id' in message ? { kind: 'request', request: request as JsonRpcRequest & { id: JsonRpcId } } : { kind: 'notification', request };
}

/** The refusal of a batch with more entries than LIMITS.jsonRpcBatch.entries; undefined when it is within. */
export function batchTooLarge(entries: number): RpcError | undefined {
  const max = LIMITS.jsonRpcBatch.entries;
  if (entries <= max) return undefined;
  return new RpcError('invalidRequest', `A JSON-RPC batch may hold at most ${max} messages; this one has ${entries}. Send them in several requests.`, {
    maxBatchEntries: max,
    entries,
  });
}

/** The answer of a batch entry whose result would take the batch's answers past LIMITS.jsonRpcBatch.responseBytes. */
export function batchBudgetSpent(): RpcError {
  const max = LIMITS.jsonRpcBatch.responseBytes;
  return new RpcError('invalidRequest', `The answers of this batch would exceed ${max} bytes; send this request on its own or ask for fewer results.`, {
    maxBatchResponseBytes: max,
  });
}

/** One entry of a method table: its params schema and handler. */
export interface RpcMethod<Ctx> {
  params: z.ZodType;
  handler(params: never, ctx: Ctx): unknown;
}

export function rpcMethod<S extends z.ZodType, Ctx>(params: S, handler: (params: z.output<S>, ctx: Ctx) => unknown): RpcMethod<Ctx> {
  return { params, handler: handler as (params: never, ctx: Ctx) => unknown };
}

export type RpcMethodTable<Ctx> = Readonly<Record<string, RpcMethod<Ctx>>>;

/** Human-readable first issue of a params validation failure: "'uri' Invalid input: expected string". */
export function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid params';
  const where = issue.path.length ? `'${issue.path.join('.')}'` : 'params';
  return `${where}: ${issue.message}`;
}

/** Runs a request against a method table: unknown method → -32601, bad params → -32602. */
export async function invoke<Ctx>(table: RpcMethodTable<Ctx>, request: JsonRpcRequest, ctx: Ctx): Promise<unknown> {
  const method = Object.hasOwn(table, request.method) ? table[request.method] : undefined;
  if (!method) throw new RpcError('methodNotFound', `Method not found: ${request.method}`);
  const parsed = method.params.safeParse(request.params ?? {});
  if (!parsed.success) throw new RpcError('invalidParams', `Invalid params for ${request.method}: ${describeIssue(parsed.error)}`);
  return await method.handler(parsed.data as never, ctx);
}
