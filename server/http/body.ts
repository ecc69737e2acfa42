// Reading a JSON request body: bounded size, JSON content type, and clear 4xx errors for anything else.
import type { IncomingMessage } from 'node:http';
import { CatalogError } from '../../src/domain/errors.ts';
import { LIMITS } from '../../src/domain/limits.ts';

export async function readBody(req: IncomingMessage, maxBytes: number = LIMITS.bodyBytes): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > maxBytes) throw new CatalogError('payload_too_large', `The body is larger than ${maxBytes} bytes.`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw new CatalogError('payload_too_large', `The body is larger than ${maxBytes} bytes.`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Parses a JSON body; `optional` bodies may be empty (undefined is returned). */
export function parseJsonBody(req: IncomingMessage, raw: Buffer, options: { optional?: boolean } = {}): unknown {
  if (raw.length === 0) {
    if (options.optional) return undefined;
    throw new CatalogError('invalid_body', 'A JSON body is required.');
  }
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type && type !== 'application/json' && !type.endsWith('+json'))
    throw new CatalogError('unsupported_media_type', `Content-Type ${type} is not supported; send application/json.`);
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw new CatalogError('invalid_body', 'The body is not valid JSON.');
  }
}
