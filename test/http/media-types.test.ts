// Guarantees the one reading of media-type headers every surface shares (server/http/media-types.ts): Accept
// ranges with their q and order, the most specific matching range deciding, the default on ties and absent or
// unsatisfiable headers, and which request bodies count as JSON.
import type { IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import { acceptQuality, contentType, isJsonBody, negotiateMediaType, parseAccept } from '../../server/http/media-types.ts';
import { negotiateAsk } from '../../server/agents/ask.ts';

const request = (type?: string | string[]): IncomingHttpHeaders => (type === undefined ? {} : { 'content-type': type as string });

describe('Accept', () => {
  it('parses ranges, q and order; a malformed q is 0', () => {
    expect(parseAccept('text/HTML;level=1, application/json;q=0.5 , */*; q=x')).toEqual([
      { type: 'text/html', q: 1, order: 0 },
      { type: 'application/json', q: 0.5, order: 1 },
      { type: '*/*', q: 0, order: 2 },
    ]);
    expect(parseAccept(undefined)).toEqual([]);
  });

  it('takes the q of the most specific matching range', () => {
    const ranges = parseAccept('*/*;q=0.1, text/*;q=0.5, text/markdown');
    expect(acceptQuality(ranges, 'text/markdown; charset=utf-8')).toBe(1);
    expect(acceptQuality(ranges, 'text/html')).toBe(0.5);
    expect(acceptQuality(ranges, 'application/json')).toBe(0.1);
    expect(acceptQuality(parseAccept('text/html'), 'application/json')).toBe(0);
  });

  it('negotiates the preferred offer, the first on ties or when nothing matches', () => {
    expect(negotiateMediaType('text/html,application/xhtml+xml;q=0.9,*/*;q=0.8', ['application/json', 'text/html'])).toBe(1);
    expect(negotiateMediaType('*/*', ['application/json', 'text/html'])).toBe(0);
    expect(negotiateMediaType('image/png', ['application/json', 'text/html'])).toBe(0);
    expect(negotiateMediaType(undefined, ['application/json', 'text/html'])).toBe(0);
  });

  it('gives /ask its formats from the same reading: SSE only when preferred, JSON-LD only when named', () => {
    expect(negotiateAsk('text/event-stream')).toBe('sse');
    expect(negotiateAsk('application/json, text/event-stream')).toBe('json');
    expect(negotiateAsk('text/event-stream;q=0.9, application/json;q=0.5')).toBe('sse');
    expect(negotiateAsk('*/*')).toBe('json');
    expect(negotiateAsk('application/ld+json')).toBe('ld+json');
  });
});

describe('JSON bodies', () => {
  it('counts application/json, any +json type and an undeclared body as JSON; nothing else', () => {
    for (const type of [undefined, 'application/json', 'Application/JSON; charset=utf-8', 'application/merge-patch+json', ['application/json']])
      expect(isJsonBody(request(type)), String(type)).toBe(true);
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x'])
      expect(isJsonBody(request(type)), type).toBe(false);
    expect(contentType(request('Text/Plain; charset=utf-8'))).toBe('text/plain');
  });
});
