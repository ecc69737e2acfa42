// A response computed before it is written: what the agent surfaces produce, so the same bytes can be sent,
// stored for an Idempotency-Key and replayed. Server-sent events are written one event per chunk and stop
// quietly when the client has gone (an abort is not an error).
import type { ServerResponse } from 'node:http';

export interface PreparedResponse {
  status: number;
  contentType: string;
  /** Written in order; for text/event-stream, one chunk per event. */
  chunks: string[];
  headers?: Record<string, string>;
}

export const EVENT_STREAM = 'text/event-stream; charset=utf-8';

export function isEventStream(contentType: string): boolean {
  return contentType.split(';')[0]!.trim().toLowerCase() === 'text/event-stream';
}

/** One SSE event; names may not hold CR or LF (they would end the field), data lines are split per the spec. */
export function sseEvent(event: string, data: string, id?: string): string {
  if (/[\r\n]/.test(event) || (id !== undefined && /[\r\n]/.test(id))) throw new Error(`invalid SSE event name or id: ${JSON.stringify(event)}`);
  const lines = data.split(/\r\n|\r|\n/).map((line) => `data: ${line}\n`).join('');
  return `${id === undefined ? '' : `id: ${id}\n`}event: ${event}\n${lines}\n`;
}

export function jsonResponse(status: number, body: string, contentType = 'application/json; charset=utf-8', headers?: Record<string, string>): PreparedResponse {
  return headers ? { status, contentType, chunks: [body], headers } : { status, contentType, chunks: [body] };
}

export function emptyResponse(status: number): PreparedResponse {
  return { status, contentType: '', chunks: [] };
}

export function bodyOf(response: PreparedResponse): string {
  return response.chunks.join('');
}

/** Sets headers that make a stream pass proxies unbuffered. */
function streamHeaders(res: ServerResponse): void {
  res.setHeader('Cache-Control', 'no-cache');
  res.setHeader('X-Accel-Buffering', 'no');
}

/** Writes a prepared response; event streams chunk by chunk, honouring backpressure and client aborts. */
export async function sendPrepared(res: ServerResponse, response: PreparedResponse, signal: AbortSignal, extraHeaders: Record<string, string> = {}): Promise<void> {
  res.statusCode = response.status;
  for (const [name, value] of Object.entries({ ...response.headers, ...extraHeaders })) res.setHeader(name, value);
  if (response.chunks.length === 0) {
    res.end();
    return;
  }
  res.setHeader('Content-Type', response.contentType);
  if (!isEventStream(response.contentType)) {
    const body = bodyOf(response);
    res.setHeader('Content-Length', Buffer.byteLength(body));
    res.end(body);
    return;
  }
  streamHeaders(res);
  res.flushHeaders();
  try {
    for (const chunk of response.chunks) {
      if (signal.aborted || res.destroyed) return;
      if (!res.write(chunk)) await waitForDrain(res, signal);
    }
  } finally {
    if (!res.destroyed) res.end();
  }
}

function waitForDrain(res: ServerResponse, signal: AbortSignal): Promise<void> {
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

/** An open-ended event stream (the MCP SSE handshake): events and keep-alive comments until the client leaves. */
export interface EventStream {
  send(event: string, data: string): void;
  comment(text: string): void;
  close(): void;
  readonly closed: boolean;
}

export function openEventStream(res: ServerResponse, signal: AbortSignal, keepAliveMs: number): EventStream {
  res.statusCode = 200;
  res.setHeader('Content-Type', EVENT_STREAM);
  streamHeaders(res);
  res.flushHeaders();
  let closed = false;
  const timer = setInterval(() => stream.comment('keep-alive'), keepAliveMs);
  timer.unref();
  const close = () => {
    if (closed) return;
    closed = true;
    clearInterval(timer);
    if (!res.destroyed) res.end();
  };
  signal.addEventListener('abort', close, { once: true });
  res.on('close', close);
  const stream: EventStream = {
    send(event, data) {
      if (!closed) res.write(sseEvent(event, data));
    },
    comment(text) {
      if (!closed) res.write(`: ${text.replace(/[\r\n]+/g, ' ')}\n\n`);
    },
    close,
    get closed() {
      return closed;
    },
  };
  return stream;
}
