// Media types on the wire, read in one place: the Accept header (RFC 9110 §12.5.1) and whether a request body
// is declared as JSON. Content negotiation (static files, the HTML/JSON switch, /ask's formats) and every JSON
// body reader (the API, MCP, A2A) use these, so they agree on what a header means.
import type { IncomingHttpHeaders } from 'node:http';

export interface AcceptRange {
  /** Lower-cased media range, without parameters: type/subtype, type/* or *\/*. */
  type: string;
  /** Quality 0–1 (a malformed q counts as 0: not acceptable). */
  q: number;
  /** Position in the header, for ties. */
  order: number;
}

export function parseAccept(header: string | undefined): AcceptRange[] {
  if (!header) return [];
  return header.split(',').map((part, order) => {
    const [type = '', ...params] = part.split(';');
    const qParam = params.find((p) => /^\s*q\s*=/i.test(p));
    const q = qParam ? Number(qParam.split('=')[1]) : 1;
    return { type: type.trim().toLowerCase(), q: Number.isFinite(q) ? q : 0, order };
  });
}

/** The q of the most specific range matching `offered` (type/subtype, then type/*, then *\/*); 0 when none does. */
export function acceptQuality(ranges: readonly AcceptRange[], offered: string): number {
  const type = offered.split(';')[0]!.trim().toLowerCase();
  const major = type.slice(0, type.indexOf('/'));
  let best = -1;
  let q = 0;
  for (const range of ranges) {
    const specificity = range.type === type ? 3 : range.type === `${major}/*` ? 2 : range.type === '*/*' ? 1 : 0;
    if (specificity > best && specificity > 0) {
      best = specificity;
      q = range.q;
    }
  }
  return q;
}

/**
 * Index of the offered media type the Accept header prefers; ties and an absent or unsatisfiable Accept give the
 * first (the default), since RFC 9110 lets a server send its default rather than 406.
 */
export function negotiateMediaType(accept: string | undefined, offered: readonly string[]): number {
  if (!accept) return 0;
  const ranges = parseAccept(accept);
  let chosen = 0;
  let bestQ = 0;
  offered.forEach((type, index) => {
    const q = acceptQuality(ranges, type);
    if (q > bestQ) {
      bestQ = q;
      chosen = index;
    }
  });
  return chosen;
}

/** The request's Content-Type without parameters, lower-cased ('' when absent). */
export function contentType(headers: IncomingHttpHeaders): string {
  const value = headers['content-type'];
  return (Array.isArray(value) ? (value[0] ?? '') : (value ?? '')).split(';')[0]!.trim().toLowerCase();
}

/** A body declared as JSON (application/json or any +json type), or not declared at all. */
export function isJsonBody(headers: IncomingHttpHeaders): boolean {
  const type = contentType(headers);
  return type === '' || type === 'application/json' || type.endsWith('+json');
}
