// The one page-token codec of every paged answer (listings' cursor and pageToken, the MCP registry's nextCursor,
// ARD's pageToken, MCP skills' nextCursor): opaque to clients, inside it the offset of the next page and a
// fingerprint of the query it belongs to, so a token cannot be replayed against another query. Each caller keeps
// its own error wording (part of its contract); the codec only says what a token holds.

export interface PageToken {
  /** The offset of the page the token points at (not checked against any range: the caller's parameter rules do). */
  readonly offset: number;
  readonly fingerprint: string;
}

/** A token for the page at `offset` of the query with this fingerprint. */
export function encodePageToken(offset: number, fingerprint: string): string {
  return Buffer.from(`o${offset}.${fingerprint}`, 'utf8').toString('base64url');
}

const TOKEN = /^o(\d+)\.([\s\S]*)$/;

/**
 * What a token holds, or undefined when it is not one this service issued. Tokens of the JSON form
 * ([offset, fingerprint], which the registry, ARD and skills pages issued before this codec) still decode, so a
 * client holding one goes on to its next page.
 */
export function decodePageToken(raw: string): PageToken | undefined {
  const text = Buffer.from(raw, 'base64url').toString('utf8');
  const match = TOKEN.exec(text);
  if (match) return { offset: Number(match[1]), fingerprint: match[2]! };
  if (!text.startsWith('[')) return undefined;
  let decoded: unknown;
  try {
    decoded = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(decoded) || !Number.isSafeInteger(decoded[0]) || (decoded[0] as number) < 0 || typeof decoded[1] !== 'string') return undefined;
  return { offset: decoded[0] as number, fingerprint: decoded[1] };
}
