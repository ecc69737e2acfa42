// Speaks HTTP/1.1 over a bare socket, for requests fetch() cannot make: absolute-form targets, no Host header,
// CONNECT, and bodies or headers sent slowly.
import { connect, type Socket } from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Milliseconds from connecting until the server closed the connection or the answer was complete. */
  ms: number;
}

export function parseRaw(text: string): Omit<RawAnswer, 'ms'> {
  const split = text.indexOf('\r\n\r\n');
  const head = split < 0 ? text : text.slice(0, split);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = split < 0 ? '' : text.slice(split + 4);
  if (headers['transfer-encoding'] === 'chunked') {
    let decoded = '';
    for (let rest = body; ;) {
      const eol = rest.indexOf('\r\n');
      const size = parseInt(rest.slice(0, eol), 16);
      if (!size) break;
      decoded += rest.slice(eol + 2, eol + 2 + size);
      rest = rest.slice(eol + 2 + size + 2);
    }
    body = decoded;
  }
  return { status: Number(statusLine.split(' ')[1] ?? 0), headers, body };
}

/**
 * Sends `parts` one after another (waiting `gapMs` between them) and reads until the server closes the connection
 * or the first complete answer with a Content-Length has arrived; gives up after `timeoutMs`.
 */
export function rawRequest(origin: string, parts: string[], options: { gapMs?: number; timeoutMs?: number } = {}): Promise<RawAnswer> {
  const { port, hostname } = new URL(origin);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(Number(port), hostname);
    let data = '';
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ ...parseRaw(data), ms: performance.now() - started });
    };
    const timer = setTimeout(() => {
      if (done) return;
      done = true;
      socket.destroy();
      reject(new Error(`no complete answer within ${options.timeoutMs ?? 5000} ms; got ${JSON.stringify(data.slice(0, 200))}`));
    }, options.timeoutMs ?? 5000);
    socket.on('data', (chunk) => {
      data += chunk.toString('utf8');
      const parsed = parseRaw(data);
      const length = Number(parsed.headers['content-length'] ?? NaN);
      if (Number.isFinite(length) && Buffer.byteLength(parsed.body) >= length) finish();
    });
    socket.on('close', finish);
    socket.on('error', () => finish());
    socket.on('connect', async () => {
      for (const [index, part] of parts.entries()) {
        if (done || socket.destroyed) return;
        if (index > 0 && options.gapMs) await new Promise((r) => setTimeout(r, options.gapMs));
        if (!socket.destroyed) socket.write(part);
      }
    });
  });
}

/**
 * A client that sends GETs for `paths` pipelined on one connection (the last asks to close it) and reads nothing
 * until `bodies()`: meanwhile the answers wait in the socket's buffers and in the server's queue. `bodies()` reads
 * to the close and gives each answer's body, in order.
 */
export async function unreadPipeline(origin: string, paths: readonly string[]): Promise<{ bodies: () => Promise<string[]> }> {
  const { port, hostname } = new URL(origin);
  const socket = connect(Number(port), hostname);
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(paths.map((path, i) => `GET ${path} HTTP/1.1\r\nHost: x\r\n${i === paths.length - 1 ? 'Connection: close\r\n' : ''}\r\n`).join(''));
  return {
    bodies: async () => {
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      await new Promise((resolve) => socket.on('close', resolve));
      const raw = Buffer.concat(chunks);
      const bodies: string[] = [];
      for (let at = 0; at < raw.length;) {
        const end = raw.indexOf('\r\n\r\n', at);
        const length = Number(/content-length: (\d+)/i.exec(raw.toString('latin1', at, end))![1]);
        bodies.push(raw.toString('utf8', end + 4, end + 4 + length));
        at = end + 4 + length;
      }
      return bodies;
    },
  };
}
