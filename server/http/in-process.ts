// The pipeline as a fetch function: a Web-standard Request in, a Response out, with no socket in between. The
// tests use it for everything that is not about the wire (headers, bodies, errors, every operation), and keep
// real HTTP for what is (streaming over a socket, timeouts, limits on the connection, the front).
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { LIMITS } from '../../src/domain/contract/limits.ts';
import { bodyTooLarge } from './body.ts';
import type { Reply } from './handler.ts';
import type { Pipeline } from './request-pipeline.ts';

export interface InProcessOptions {
  /** The peer address the request appears to come from (default 127.0.0.1). */
  remoteAddress?: string;
}

const NO_BODY = new Set([101, 204, 205, 304]);

function incomingHeaders(headers: Headers): IncomingHttpHeaders {
  const out: IncomingHttpHeaders = {};
  headers.forEach((value, name) => {
    out[name] = value;
  });
  return out;
}

function responseOf(reply: Reply, replyHeaders: OutgoingHttpHeaders, method: string): Response {
  if (reply.node) throw new Error('this reply is written by a node:http renderer (/browse): request it over HTTP');
  const headers = new Headers();
  for (const [name, value] of Object.entries(replyHeaders)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, String(value));
  }
  const empty = method === 'HEAD' || NO_BODY.has(reply.status);
  if (reply.stream) {
    const iterator = reply.stream[Symbol.asyncIterator]();
    if (empty) void iterator.return?.();
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = await iterator.next();
        if (next.done) controller.close();
        else controller.enqueue(typeof next.value === 'string' ? encoder.encode(next.value) : new Uint8Array(next.value));
      },
      async cancel() {
        await iterator.return?.();
      },
    });
    return new Response(empty ? null : body, { status: reply.status, headers });
  }
  if (reply.body !== undefined) {
    const bytes = typeof reply.body === 'string' ? Buffer.from(reply.body) : reply.body;
    headers.set('Content-Length', String(bytes.length));
    return new Response(empty ? null : new Uint8Array(bytes), { status: reply.status, headers });
  }
  return new Response(null, { status: reply.status, headers });
}

/** A fetch over the pipeline; `input` is a path (/api/v1/listings?q=x) or a URL whose path is used. */
export function inProcessFetch(pipeline: Pipeline, options: InProcessOptions = {}): (input: string, init?: RequestInit) => Promise<Response> {
  return async (input, init = {}) => {
    const request = new Request(new URL(input, 'http://in-process'), init);
    const url = new URL(request.url);
    const headers = incomingHeaders(request.headers);
    headers.host ??= url.host;
    const body = request.body ? Buffer.from(await request.arrayBuffer()) : Buffer.alloc(0);
    const handled = await pipeline({
      method: request.method,
      target: input.startsWith('/') ? input : url.pathname + url.search,
      headers,
      remoteAddress: options.remoteAddress ?? '127.0.0.1',
      signal: request.signal,
      requiresHost: true,
      body: async () => {
        if (body.length > LIMITS.bodyBytes) throw bodyTooLarge();
        return body;
      },
    });
    return responseOf(handled.reply, handled.headers, request.method);
  };
}
