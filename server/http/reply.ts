// Writing responses: JSON with the right headers, and the documented {code, message, resolution} errors.
import type { ServerResponse } from 'node:http';
import { CatalogError } from '../../src/domain/errors.ts';

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string | number> = {},
  contentType = 'application/json; charset=utf-8',
): void {
  // Encoded once: Content-Length and the write then share the bytes.
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  res.statusCode = status;
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', bytes.length);
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.end(bytes);
}

export function sendText(res: ServerResponse, status: number, text: string, contentType: string, headers: Record<string, string | number> = {}): void {
  sendJson(res, status, text, headers, contentType);
}

export function sendError(res: ServerResponse, error: CatalogError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(res, error.status, error.toBody(), error.headers);
}

/** Anything that is not a CatalogError is a bug or an outage: log it, answer a bare 500 with no internals. */
export function toCatalogError(error: unknown): CatalogError {
  if (error instanceof CatalogError) return error;
  return new CatalogError('internal_error', 'The server could not complete the request.');
}
