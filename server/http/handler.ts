// The handler contract of the shim: a small typed request in, a reply out. Handlers never see a socket or
// node:http objects, so every one of them can be called in-process (tests, the in-process client); the thin
// adapter in node-adapter.ts is the only code that reads an IncomingMessage or writes a ServerResponse.
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { RouteOperation, RouteOperationId } from '../../src/domain/contract/operations.ts';
import { CatalogError } from '../../src/domain/contract/errors.ts';

export interface RequestContext {
  /** As sent: HEAD stays HEAD (a GET handler answers it; the adapter leaves the body out). */
  readonly method: string;
  readonly path: string;
  /** The request target in origin form (path and query), as received: the key of a cached answer. */
  readonly target: string;
  readonly query: URLSearchParams;
  readonly params: Readonly<Record<string, string | undefined>>;
  readonly headers: IncomingHttpHeaders;
  readonly clientIp: string;
  /** Aborted when the client goes away, so long work (streams, searches) can stop. */
  readonly signal: AbortSignal;
  /** The operation of OPERATIONS this request matched (undefined outside a route: static files, errors). */
  readonly operation?: RouteOperation | undefined;
  /** The whole body, bounded in size (413) and time (408); empty when the request has none. */
  body(): Promise<Buffer>;
}

export interface Reply {
  readonly status: number;
  readonly headers?: OutgoingHttpHeaders;
  /** The whole body; the adapter sets Content-Length. */
  readonly body?: Buffer | string;
  /**
   * A body produced over time (server-sent events, a file too large to hold): written chunk by chunk with
   * backpressure, and abandoned when the client leaves.
   */
  readonly stream?: AsyncIterable<Buffer | string>;
  /**
   * A reply only a node:http writer can give: the /browse page, rendered by Astro's node middleware (the server
   * bundle of @astrojs/node exports nothing else). Over the wire only; the in-process client refuses it.
   */
  readonly node?: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
}

export type Handler = (ctx: RequestContext) => Reply | Promise<Reply>;

/** Handlers of some operations, keyed by operation id: an id that is not a route operation is a type error. */
export type HandlersFor<Id extends RouteOperationId> = { readonly [K in Id]: Handler };
/** Every route operation's handler: a missing one is a type error where the table is assembled. */
export type HandlerTable = HandlersFor<RouteOperationId>;

export const JSON_TYPE = 'application/json; charset=utf-8';

/** A JSON (or other whole-body) reply; strings and buffers are sent as they are, anything else is serialised. */
export function json(status: number, body: unknown, headers?: OutgoingHttpHeaders, contentType: string = JSON_TYPE): Reply {
  const bytes = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  return { status, headers: headers ? { 'Content-Type': contentType, ...headers } : { 'Content-Type': contentType }, body: bytes };
}

/** A reply without a body (204, 202, 302, 304). */
export function empty(status: number, headers?: OutgoingHttpHeaders): Reply {
  return headers ? { status, headers } : { status };
}

/** The documented {code, message, resolution} error as a reply. */
export function errorReply(error: CatalogError): Reply {
  return json(error.status, error.toBody(), error.headers);
}

/** Anything that is not a CatalogError is a bug or an outage: the caller logs it, the client gets a bare 500. */
export function toCatalogError(error: unknown): CatalogError {
  if (error instanceof CatalogError) return error;
  return new CatalogError('internal_error', 'The server could not complete the request.');
}

/** One header's value as a string (the first, when the client sent it more than once). */
export function headerOf(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
