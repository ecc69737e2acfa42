// Responses finished in a burst after the poll phase (server/http/write-batch.ts), on a real node:http server:
// each response gets its own body, in the order its socket asked, a client that left costs nothing, and one response
// that cannot be finished does not hold back the others.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WriteBatch } from '../../server/http/write-batch.ts';

let server: Server | undefined;

/** A response that never comes fails its test instead of hanging it. */
const get = (url: string) => fetch(url, { signal: AbortSignal.timeout(3000) });

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  server = createServer(handler);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function answer(batch: WriteBatch, res: ServerResponse, text: string): void {
  const body = Buffer.from(text);
  res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': body.length });
  batch.end(res, body);
}

describe('a write batch', () => {
  it('finishes a response after the poll phase, not while its request is handled', async () => {
    const batch = new WriteBatch(() => undefined);
    const states: boolean[] = [];
    const base = await serve((req, res) => {
      answer(batch, res, 'later');
      states.push(res.writableEnded);
      setImmediate(() => states.push(res.writableEnded));
    });
    const reply = await get(`${base}/`);
    expect(await reply.text()).toBe('later');
    expect(states).toEqual([false, true]);
  });

  it('gives each of many concurrent requests its own body', async () => {
    const batch = new WriteBatch(() => undefined);
    const base = await serve((req, res) => answer(batch, res, `answer to ${req.url}`));
    const urls = Array.from({ length: 60 }, (_, i) => `/item/${i}?n=${i * 7}`);
    const bodies = await Promise.all(urls.map(async (url) => (await get(base + url)).text()));
    expect(bodies).toEqual(urls.map((url) => `answer to ${url}`));
  });

  it('finishes answers without a body (304) among answers with one', async () => {
    const batch = new WriteBatch(() => undefined);
    const base = await serve((req, res) => {
      if (req.url!.startsWith('/same')) {
        res.writeHead(304, { ETag: '"v1"' });
        batch.end(res);
      } else answer(batch, res, `fresh ${req.url}`);
    });
    const replies = await Promise.all(['/same/1', '/new/1', '/same/2', '/new/2'].map((url) => get(base + url)));
    expect(replies.map((reply) => reply.status)).toEqual([304, 200, 304, 200]);
    expect(replies[0]!.headers.get('etag')).toBe('"v1"');
    expect(await Promise.all(replies.map((reply) => reply.text()))).toEqual(['', 'fresh /new/1', '', 'fresh /new/2']);
  });

  it('answers pipelined requests on one socket in the order they were sent', async () => {
    const batch = new WriteBatch(() => undefined);
    const base = await serve((req, res) => answer(batch, res, `<${req.url}>`));
    const { port } = new URL(base);
    const socket = connect(Number(port), '127.0.0.1');
    const paths = ['/a', '/b', '/c', '/d'];
    socket.write(paths.map((p, i) => `GET ${p} HTTP/1.1\r\nHost: x\r\n${i === paths.length - 1 ? 'Connection: close\r\n' : ''}\r\n`).join(''));
    let raw = '';
    for await (const chunk of socket) raw += String(chunk);
    const bodies = raw
      .split('HTTP/1.1 200 OK')
      .slice(1)
      .map((part) => part.slice(part.indexOf('\r\n\r\n') + 4));
    expect(bodies).toEqual(paths.map((p) => `<${p}>`));
  });

  it('goes on serving after a client left before its response was finished', async () => {
    const batch = new WriteBatch(() => undefined);
    const base = await serve((req, res) => {
      if (req.url === '/leave') {
        res.writeHead(200, { 'Content-Length': 4 });
        batch.end(res, Buffer.from('gone'));
        req.socket.destroy();
        return;
      }
      answer(batch, res, 'still here');
    });
    await expect(get(`${base}/leave`)).rejects.toThrow();
    expect(await (await get(`${base}/next`)).text()).toBe('still here');
  });

  it('finishes the rest of a burst when one response cannot be finished, and says which failed', async () => {
    const failures: Array<{ error: unknown; url: string | undefined }> = [];
    const batch = new WriteBatch((error, res) => failures.push({ error, url: res.req.url }));
    let failing: ServerResponse | undefined;
    const base = await serve((req, res) => {
      if (req.url === '/fails') {
        failing = res;
        // Node's own response, made to fail as a broken socket write would.
        res.end = () => {
          throw new Error('write failed');
        };
      }
      answer(batch, res, `ok ${req.url}`);
    });
    const [failed, ...rest] = await Promise.allSettled(['/fails', '/one', '/two'].map(async (url) => (await get(base + url)).text()));
    expect(failed!.status).toBe('rejected');
    expect(failing?.destroyed).toBe(true);
    expect(failures).toEqual([{ error: new Error('write failed'), url: '/fails' }]);
    expect(rest.map((r) => (r.status === 'fulfilled' ? r.value : 'rejected'))).toEqual(['ok /one', 'ok /two']);
  });
});
