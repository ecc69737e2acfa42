// Reading a JSON request body: bounded size, JSON content type, and clear 4xx errors for anything else.
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { CatalogError } from '../../src/domain/contract/errors.ts';
import { LIMITS } from '../../src/domain/contract/limits.ts';
import { contentType, isJsonBody } from './media-types.ts';

/**
 * Reads a request's whole body: at most maxBytes (413) and within timeoutMs (408; the composition root passes
 * HTTP_BODY_TIMEOUT_MS). Used by the node:http adapter only; handlers call ctx.body().
 */
/** The refusal of a body over the limit (its connection is closed rather than drained). */
export function bodyTooLarge(maxBytes: number = LIMITS.bodyBytes): CatalogError {
  return new CatalogError('payload_too_large', `The body is larger than ${maxBytes} bytes.`, { headers: { Connection: 'close' } });
}

export async function readBody(req: IncomingMessage, options: { maxBytes?: number; timeoutMs?: number | undefined } = {}): Promise<Buffer> {
  const maxBytes = options.maxBytes ?? LIMITS.bodyBytes;
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > maxBytes) throw new CatalogError('payload_too_large', `The body is larger than ${maxBytes} bytes.`);
  if (req.readableEnded) return Buffer.alloc(0);
  const { timeoutMs } = options;
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
      if (size > maxBytes) finish(bodyTooLarge(maxBytes));
      else chunks.push(chunk);
    };
    const onEnd = () => finish();
    const onAborted = () => finish(new CatalogError('invalid_body', 'The client closed the connection before the body was complete.'));
    // A body trickled in byte by byte would otherwise hold the request open until Node's request timeout.
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(
            () => finish(new CatalogError('request_timeout', `The body did not arrive within ${timeoutMs} ms.`, { headers: { Connection: 'close' } })),
            timeoutMs,
          );
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', finish);
    req.on('aborted', onAborted);
  });
}

/** Parses a JSON body; `optional` bodies may be empty (undefined is returned). */
export function parseJsonBody(headers: IncomingHttpHeaders, raw: Buffer, options: { optional?: boolean } = {}): unknown {
  if (raw.length === 0) {
    if (options.optional) return undefined;
    throw new CatalogError('invalid_body', 'A JSON body is required.');
  }
  if (!isJsonBody(headers)) throw new CatalogError('unsupported_media_type', `Content-Type ${contentType(headers)} is not supported; send application/json.`);
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw new CatalogError('invalid_body', 'The body is not valid JSON.');
  }
}
