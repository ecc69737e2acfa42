// A response computed before it is written: what the agent surfaces produce, so the same bytes can be sent,
// stored for an Idempotency-Key and replayed. Server-sent events become a reply written one event per chunk,
// which stops quietly when the client has gone (an abort is not an error).
import type { OutgoingHttpHeaders } from 'node:http';
import type { Reply } from './handler.ts';

export interface PreparedResponse {
  status: number;
  contentType: string;
  /** Written in order; for text/event-stream, one chunk per event. A body assembled from stored bytes is a Buffer. */
  chunks: Array<string | Buffer>;
  headers?: Record<string, string>;
}

export const EVENT_STREAM = 'text/event-stream; charset=utf-8';

function isEventStream(contentType: string): boolean {
  return contentType.split(';')[0]!.trim().toLowerCase() === 'text/event-stream';
}

/** One SSE event; names may not hold CR or LF (they would end the field), data lines are split per the spec. */
export function sseEvent(event: string, data: string, id?: string): string {
  if (/[\r\n]/.test(event) || (id !== undefined && /[\r\n]/.test(id))) throw new Error(`invalid SSE event name or id: ${JSON.stringify(event)}`);
  const lines = data
    .split(/\r\n|\r|\n/)
    .map((line) => `data: ${line}\n`)
    .join('');
  return `${id === undefined ? '' : `id: ${id}\n`}event: ${event}\n${lines}\n`;
}

export function jsonResponse(
  status: number,
  body: string | Buffer,
  contentType = 'application/json; charset=utf-8',
  headers?: Record<string, string>,
): PreparedResponse {
  return headers ? { status, contentType, chunks: [body], headers } : { status, contentType, chunks: [body] };
}

export function emptyResponse(status: number): PreparedResponse {
  return { status, contentType: '', chunks: [] };
}

/** The whole body of a response that is not a stream. */
function bodyOf(response: PreparedResponse): string | Buffer {
  const { chunks } = response;
  if (chunks.length === 1) return chunks[0]!;
  return chunks.every((chunk) => typeof chunk === 'string')
    ? chunks.join('')
    : Buffer.concat(chunks.map((chunk) => (typeof chunk === 'string' ? Buffer.from(chunk) : chunk)));
}

/** The body as text (what the idempotency stores keep; the bytes are UTF-8, so the text gives them back). */
export function textOf(response: PreparedResponse): string {
  return response.chunks.map((chunk) => (typeof chunk === 'string' ? chunk : chunk.toString('utf8'))).join('');
}

/** Headers that make a stream pass proxies unbuffered. */
const STREAM_HEADERS = { 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' } as const;

/** The reply of a prepared response: event streams chunk by chunk (the adapter honours backpressure and aborts). */
export function fromPrepared(response: PreparedResponse, extraHeaders?: Record<string, string | number>): Reply {
  const headers: OutgoingHttpHeaders = { ...response.headers, ...extraHeaders };
  if (response.chunks.length === 0) return { status: response.status, headers };
  headers['Content-Type'] = response.contentType;
  if (!isEventStream(response.contentType)) return { status: response.status, headers, body: bodyOf(response) };
  return { status: response.status, headers: { ...headers, ...STREAM_HEADERS }, stream: chunksOf(response.chunks) };
}

async function* chunksOf(chunks: ReadonlyArray<string | Buffer>): AsyncGenerator<string | Buffer> {
  yield* chunks;
}

/** An open-ended event stream (the MCP SSE handshake): events and keep-alive comments until it is closed. */
export interface EventStream {
  send(event: string, data: string): void;
  comment(text: string): void;
  close(): void;
  readonly closed: boolean;
  /** Called once when the stream ends, whoever ends it (the server, the client leaving, the signal). */
  onClose(listener: () => void): void;
}

/**
 * An event stream and the reply that carries it: what is sent is queued until the adapter writes it; the stream
 * closes when the request's signal aborts (the client left) or when close() is called.
 */
export function openEventStream(signal: AbortSignal, keepAliveMs: number): { stream: EventStream; reply: Reply } {
  const queue: string[] = [];
  const listeners: Array<() => void> = [];
  let wake: (() => void) | undefined;
  let closed = false;
  const push = (chunk: string) => {
    if (closed) return;
    queue.push(chunk);
    wake?.();
  };
  const timer = setInterval(() => stream.comment('keep-alive'), keepAliveMs);
  timer.unref();
  const close = () => {
    if (closed) return;
    closed = true;
    clearInterval(timer);
    signal.removeEventListener('abort', close);
    wake?.();
    for (const listener of listeners.splice(0)) listener();
  };
  signal.addEventListener('abort', close, { once: true });
  const stream: EventStream = {
    send: (event, data) => push(sseEvent(event, data)),
    comment: (text) => push(`: ${text.replace(/[\r\n]+/g, ' ')}\n\n`),
    close,
    // One per event stream (a client's long-lived connection), not per request.
    // eslint-disable-next-line no-restricted-syntax
    get closed() {
      return closed;
    },
    onClose(listener) {
      if (closed) listener();
      else listeners.push(listener);
    },
  };
  async function* drain(): AsyncGenerator<string> {
    try {
      for (;;) {
        while (queue.length > 0) yield queue.shift()!;
        if (closed) return;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
    } finally {
      // The writer stopped (the client left, or the stream ended): either way this stream is over.
      close();
    }
  }
  return { stream, reply: { status: 200, headers: { 'Content-Type': EVENT_STREAM, ...STREAM_HEADERS }, stream: drain() } };
}
