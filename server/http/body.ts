// Reading a JSON request body: bounded size, JSON content type, and clear 4xx errors for anything else.
import type { IncomingMessage } from 'node:http';
import { CatalogError } from '../../src/domain/errors.ts';
import { LIMITS } from '../../src/domain/limits.ts';
import { contentType, isJsonBody } from './media-types.ts';

const bodyTimeouts = new WeakMap<IncomingMessage, number>();

/** How long readBody waits for the whole body of this request (the composition root sets HTTP_BODY_TIMEOUT_MS). */
export function setBodyTimeout(req: IncomingMessage, ms: number): void {
  bodyTimeouts.set(req, ms);
}

export async function readBody(req: IncomingMessage, maxBytes: number = LIMITS.bodyBytes): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > maxBytes) throw new CatalogError('payload_too_large', `The body is larger than ${maxBytes} bytes.`);
  if (req.readableEnded) return Buffer.alloc(0);
  const timeoutMs = bodyTimeouts.get(req);
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (error?: unknown) => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', finish);
      req.off('aborted', onAborted);
      if (error === undefined) resolve(Buffer.concat(chunks));
      else {
        // The rest of the body is not read; the answer closes the connection instead of draining it.
        req.pause();
        reject(error);
      }
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) finish(new CatalogError('payload_too_large', `The body is larger than ${maxBytes} bytes.`, { headers: { Connection: 'close' } }));
      else chunks.push(chunk);
    };
    const onEnd = () => finish();
    const onAborted = () => finish(new CatalogError('invalid_body', 'The client closed the connection before the body was complete.'));
    // A body trickled in byte by byte would otherwise hold the request open until Node's request timeout.
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(() => finish(new CatalogError('request_timeout', `The body did not arrive within ${timeoutMs} ms.`, { headers: { Connection: 'close' } })), timeoutMs);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', finish);
    req.on('aborted', onAborted);
  });
}

/** Parses a JSON body; `optional` bodies may be empty (undefined is returned). */
export function parseJsonBody(req: IncomingMessage, raw: Buffer, options: { optional?: boolean } = {}): unknown {
  if (raw.length === 0) {
    if (options.optional) return undefined;
    throw new CatalogError('invalid_body', 'A JSON body is required.');
  }
  if (!isJsonBody(req)) throw new CatalogError('unsupported_media_type', `Content-Type ${contentType(req)} is not supported; send application/json.`);
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw new CatalogError('invalid_body', 'The body is not valid JSON.');
  }
}
