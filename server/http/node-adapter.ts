// The one bridge between node:http and the pipeline: reads a request off the socket into an IncomingRequest,
// writes the Reply back (whole bodies with their length, streams with backpressure, stopping when the client
// leaves), and answers what Node rejects before any handler runs (malformed HTTP, slow headers, CONNECT) in the
// documented error shape. Request logs and metrics are taken here, when the response is done.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import { API_VERSION } from '../../src/domain/brand.ts';
import { CatalogError } from '../../src/domain/contract/errors.ts';
import type { Config } from '../../src/config.ts';
import type { RouteOperationId } from '../../src/domain/contract/operations.ts';
import type { Metrics } from '../ops/metrics.ts';
import { SEARCH_MODE_HEADER } from '../search-runtime/listing-search.ts';
import { readBody } from './body.ts';
import { toCatalogError, type Reply } from './handler.ts';
import type { Handled, IncomingRequest, Pipeline } from './request-pipeline.ts';
import { WriteBatch } from './write-batch.ts';

/** Operations that answer a listing search (for the search-mode metric). */
const SEARCH_OPERATIONS: ReadonlySet<RouteOperationId | undefined> = new Set<RouteOperationId>([
  'searchListings',
  'searchListingsRaw',
  'askGet',
  'askPost',
  'browsePage',
]);

/** An answer written straight to a socket (before or outside Node's response object), in the documented shape. */
function rawResponse(statusLine: string, error: CatalogError, extraHeaders = ''): string {
  const body = JSON.stringify(error.toBody());
  return (
    `HTTP/1.1 ${statusLine}\r\nContent-Type: application/json; charset=utf-8\r\nAPI-Version: ${API_VERSION}\r\n${extraHeaders}` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}

function drained(res: ServerResponse, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
    signal.addEventListener('abort', done);
  });
}

/** Writes a reply; the body is left out of a HEAD answer by Node itself, keeping Content-Length. */
async function writeReply(
  req: IncomingMessage,
  res: ServerResponse,
  reply: Reply,
  headers: OutgoingHttpHeaders,
  request: IncomingRequest,
  batch: WriteBatch,
): Promise<void> {
  if (reply.node) {
    for (const [name, value] of Object.entries(headers)) if (value !== undefined) res.setHeader(name, value);
    await reply.node(req, res);
    return;
  }
  if (reply.stream) {
    res.writeHead(reply.status, headers);
    res.flushHeaders();
    // Only a stream needs to know that the client left (a whole body is written at once).
    const { signal } = request;
    try {
      for await (const chunk of reply.stream) {
        if (signal.aborted || res.destroyed) break;
        if (!res.write(chunk)) await drained(res, signal);
      }
    } finally {
      if (!res.destroyed) res.end();
    }
    return;
  }
  if (reply.body === undefined) {
    res.writeHead(reply.status, headers);
    batch.end(res);
    return;
  }
  const body = typeof reply.body === 'string' ? Buffer.from(reply.body) : reply.body;
  headers['Content-Length'] = body.length;
  res.writeHead(reply.status, headers);
  batch.end(res, body);
}

/**
 * A request as read off a node:http socket. A class rather than an object literal with getters: V8 keeps a
 * literal's getter in the literal's hidden class, which lives in old space, so a getter closure made per request
 * (holding the request and response) kept each request's objects alive past the young generation until a full
 * collection, so young-generation collections grew long and full ones frequent under load.
 */
class NodeRequest implements IncomingRequest {
  readonly method: string;
  readonly target: string;
  readonly headers: IncomingHttpHeaders;
  readonly remoteAddress: string;
  readonly requiresHost: boolean;
  readonly #req: IncomingMessage;
  readonly #res: ServerResponse;
  readonly #bodyMs: number;
  #controller: AbortController | undefined;
  #body: Promise<Buffer> | undefined;

  constructor(req: IncomingMessage, res: ServerResponse, bodyMs: number) {
    this.#req = req;
    this.#res = res;
    this.#bodyMs = bodyMs;
    this.method = req.method ?? 'GET';
    this.target = req.url ?? '/';
    this.headers = req.headers;
    this.remoteAddress = req.socket.remoteAddress ?? 'unknown';
    this.requiresHost = req.httpVersionMajor > 1 || (req.httpVersionMajor === 1 && req.httpVersionMinor >= 1);
  }

  /** Made on first use: most requests never need one, and at tens of thousands a second the allocation shows. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      const created = new AbortController();
      const res = this.#res;
      this.#controller = created;
      res.on('close', () => {
        if (!res.writableFinished) created.abort();
      });
    }
    return this.#controller.signal;
  }

  body(): Promise<Buffer> {
    this.#body ??= readBody(this.#req, { timeoutMs: this.#bodyMs });
    return this.#body;
  }
}

export interface NodeServerDeps {
  config: Config;
  pipeline: Pipeline;
  logger: Logger;
  metrics: Metrics;
}

/** A request Node itself rejects (malformed HTTP, too slow, CONNECT) still gets the documented error shape. */
function answerWhatNodeRejects(server: Server, timeouts: Config['timeouts']): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable) return;
    const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
    const refusal = timedOut
      ? new CatalogError(
          'request_timeout',
          `The request was not received within ${timeouts.headersMs} ms (headers) or ${timeouts.requestMs} ms (whole request).`,
        )
      : new CatalogError('invalid_parameter', 'The request is not valid HTTP.');
    socket.end(rawResponse(timedOut ? '408 Request Timeout' : '400 Bad Request', refusal));
  });
  // CONNECT (a tunnel request) never reaches the request handler; the shim is not a proxy.
  server.on('connect', (_req: IncomingMessage, socket: Socket) => {
    socket.end(
      rawResponse(
        '405 Method Not Allowed',
        new CatalogError('method_not_allowed', 'CONNECT is not served: this is not a proxy.'),
        'Allow: GET, HEAD, POST, OPTIONS\r\n',
      ),
    );
  });
}

/** Once a response is closed, however it ended: its metrics and its log line. */
function recordResponse(
  { logger, metrics }: Pick<NodeServerDeps, 'logger' | 'metrics'>,
  req: IncomingMessage,
  res: ServerResponse,
  method: string,
  started: number,
  handled: Handled | undefined,
): void {
  const seconds = (performance.now() - started) / 1000;
  const route = handled?.route ?? 'unmatched';
  metrics.request(route, method, res.statusCode, seconds);
  // Searches without `semantic` carry no Search-Mode header: they are keyword searches.
  const mode = handled?.headers[SEARCH_MODE_HEADER];
  if (mode !== undefined || (SEARCH_OPERATIONS.has(handled?.operation) && res.statusCode === 200))
    metrics.searchMode(mode === undefined ? 'keyword' : String(mode));
  if (!logger.isLevelEnabled('info')) return;
  logger.info(
    {
      reqId: handled?.requestId,
      method: req.method,
      url: req.url,
      route,
      status: res.statusCode,
      ms: Math.round(seconds * 10_000) / 10,
      completed: res.writableFinished,
    },
    'request',
  );
}

export function createNodeServer({ config, pipeline, logger, metrics }: NodeServerDeps): Server {
  const { timeouts } = config;
  const batch = new WriteBatch((error, res) => logger.error({ err: error, url: res.req.url, method: res.req.method }, 'a response could not be finished'));

  const server = createServer(
    {
      keepAliveTimeout: timeouts.keepAliveMs,
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      // Node checks the two timeouts above only this often (by default far less often than the limits themselves).
      connectionsCheckingInterval: Math.max(250, Math.min(1000, Math.floor(timeouts.headersMs / 4))),
      // Checked by the pipeline, so the refusal has the documented body.
      requireHostHeader: false,
    },
    (req, res) => {
      const started = performance.now();
      const request = new NodeRequest(req, res, timeouts.bodyMs);
      let handled: Handled | undefined;
      res.once('close', () => recordResponse({ logger, metrics }, req, res, request.method, started, handled));
      void pipeline(request).then(async (result) => {
        handled = result;
        // Node-bound renderers (Astro's /browse) read the target from req.url.
        if (result.target !== undefined) req.url = result.target;
        try {
          await writeReply(req, res, result.reply, result.headers, request, batch);
        } catch (error) {
          const catalogError = toCatalogError(error);
          if (catalogError.status >= 500) logger.error({ err: error, reqId: result.requestId, url: req.url, method: req.method }, 'request failed');
          if (res.headersSent) res.destroy();
          else {
            const body = JSON.stringify(catalogError.toBody());
            res.writeHead(catalogError.status, {
              ...catalogError.headers,
              'Content-Type': 'application/json; charset=utf-8',
              'Content-Length': Buffer.byteLength(body),
            });
            res.end(body);
          }
        }
      });
    },
  );
  // Socket inactivity while a request is in progress (a client that stops reading, or stops sending).
  server.setTimeout(timeouts.idleMs);
  answerWhatNodeRejects(server, timeouts);
  return server;
}
