// A node:http server on 127.0.0.1 whose answers a test scripts: a status, headers and body, a truncated body,
// an answer that never comes, a connection cut. It records every request, so tests count what a source spent.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** Path and query, as sent. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  /** A string is sent as is; anything else as JSON. */
  body?: unknown;
  /** Never answer (the client's timeout must end it). */
  hang?: boolean;
  /** Send the headers and the first bytes of the body, then cut the connection. */
  cut?: boolean;
}

export interface ScriptServer {
  origin: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export type Script = (request: RecordedRequest, server: { origin: string }) => Reply | Promise<Reply>;

function send(res: ServerResponse, reply: Reply): void {
  const body = reply.body === undefined ? '' : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8', ...reply.headers };
  if (reply.cut) {
    res.writeHead(reply.status ?? 200, { ...headers, 'content-length': String(Buffer.byteLength(body)) });
    res.write(body.slice(0, Math.max(1, Math.floor(body.length / 2))));
    // Let the first bytes leave before the connection goes.
    setTimeout(() => res.socket?.destroy(), 5);
    return;
  }
  res.writeHead(reply.status ?? 200, headers);
  res.end(body);
}

export async function startScriptServer(script: Script): Promise<ScriptServer> {
  const requests: RecordedRequest[] = [];
  let origin = '';
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const recorded: RecordedRequest = {
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(recorded);
      Promise.resolve(script(recorded, { origin }))
        .then((reply) => {
          if (!reply.hang) send(res, reply);
        })
        .catch((error: unknown) => send(res, { status: 599, body: { error: String(error) } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        // Hanging answers keep their sockets open: close them, or close() never returns.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A script that answers requests in order from a list; past its end, the last reply again. */
export function sequence(replies: Reply[]): Script {
  let i = 0;
  return () => replies[Math.min(i++, replies.length - 1)]!;
}
