// The text the embeddings stage embeds for each line of runtime/listings.jsonl, in document order, and a digest of
// them in that order. Every build reads every line, also when no text changed, so a line is not parsed whole: its
// first keys are read up to `name` and `description` (the index stage writes them among the first, after short
// string fields), and only those two strings are decoded. A line that does not open that way (another key order, a
// number or an object before them, white space, escapes in a key, a key twice before both are read) is parsed whole,
// so every line gives the text JSON.parse would give. Once both are read the rest of the line is not: the index
// stage writes it with JSON.stringify, which never writes a key twice. The file is read in chunks, never whole.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { listingText } from '../../../src/embeddings/embedder.ts';

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const NEWLINE = 0x0a;
const RETURN = 0x0d;
const NULL = Buffer.from('null');
const NAME = Buffer.from('"name"');
const DESCRIPTION = Buffer.from('"description"');

/** The end (past the closing quote) of the JSON string opening at `start`, or -1 when it does not close before `end`. */
function stringEnd(buf: Buffer, start: number, end: number): number {
  let at = start;
  for (;;) {
    at = buf.indexOf(QUOTE, at + 1);
    if (at < 0 || at >= end) return -1;
    let backslashes = 0;
    while (buf[at - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at + 1;
  }
}

/** Whether bytes [start, end) hold an escape (a loop: a native search per short field costs more than it saves). */
function hasEscape(buf: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (buf[i] === BACKSLASH) return true;
  return false;
}

/** A JSON string token's value; raw UTF-8 when it holds no escape. */
function decodeString(buf: Buffer, start: number, end: number): string {
  return hasEscape(buf, start, end) ? (JSON.parse(buf.toString('utf8', start, end)) as string) : buf.toString('utf8', start + 1, end - 1);
}

function sameBytes(buf: Buffer, start: number, end: number, word: Buffer): boolean {
  if (end - start !== word.length) return false;
  for (let i = 0; i < word.length; i++) if (buf[start + i] !== word[i]) return false;
  return true;
}

/**
 * The text of the listing on bytes [start, end) of a chunk: read from the line's leading string (or null) fields
 * when `name` and `description` are among them, else from the line parsed whole.
 */
export function lineText(buf: Buffer, start: number, end: number): string {
  const parsed = () => listingText(JSON.parse(buf.toString('utf8', start, end)) as { name?: string | null; description?: string | null });
  if (buf[start] !== OPEN_BRACE) return parsed();
  let name: string | null | undefined;
  let description: string | null | undefined;
  let seen = 0;
  let at = start + 1;
  while (seen < 2) {
    if (buf[at] !== QUOTE) return parsed();
    const keyEnd = stringEnd(buf, at, end);
    if (keyEnd < 0 || buf[keyEnd] !== COLON) return parsed();
    const isName = sameBytes(buf, at, keyEnd, NAME);
    const isDescription = !isName && sameBytes(buf, at, keyEnd, DESCRIPTION);
    // A key with an escape could spell either name: left to JSON.parse.
    if (!isName && !isDescription && hasEscape(buf, at, keyEnd)) return parsed();
    const valueStart = keyEnd + 1;
    let valueEnd: number;
    let value: string | null;
    if (buf[valueStart] === QUOTE) {
      valueEnd = stringEnd(buf, valueStart, end);
      if (valueEnd < 0) return parsed();
      value = isName || isDescription ? decodeString(buf, valueStart, valueEnd) : null;
    } else if (sameBytes(buf, valueStart, Math.min(end, valueStart + NULL.length), NULL)) {
      valueEnd = valueStart + NULL.length;
      value = null;
    } else return parsed();
    // A key given twice: JSON.parse keeps the last.
    if (isName) {
      if (name !== undefined) return parsed();
      name = value;
      seen++;
    } else if (isDescription) {
      if (description !== undefined) return parsed();
      description = value;
      seen++;
    }
    // The line goes on past both (and is not read further), or ends here with both read.
    if (buf[valueEnd] === COMMA) at = valueEnd + 1;
    else if (seen < 2 || buf[valueEnd] !== CLOSE_BRACE) return parsed();
  }
  return listingText({ name, description });
}

/**
 * Each listing's text, in document order, and the sha256 of that sequence (equal digests: the same texts in the
 * same order).
 */
export async function readListingTexts(listingsPath: string): Promise<{ texts: string[]; digest: string }> {
  const texts: string[] = [];
  let rest: Buffer | undefined;
  for await (const chunk of createReadStream(listingsPath, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    const buf = rest ? Buffer.concat([rest, chunk]) : chunk;
    let start = 0;
    for (let newline = buf.indexOf(NEWLINE); newline >= 0; newline = buf.indexOf(NEWLINE, start)) {
      const end = newline > start && buf[newline - 1] === RETURN ? newline - 1 : newline;
      if (end > start) texts.push(lineText(buf, start, end));
      start = newline + 1;
    }
    rest = start < buf.length ? buf.subarray(start) : undefined;
  }
  if (rest && rest.length > 0) {
    const end = rest[rest.length - 1] === RETURN ? rest.length - 1 : rest.length;
    if (end > 0) texts.push(lineText(rest, 0, end));
  }
  // Each text after its length: unambiguous whatever characters a text holds.
  const hash = createHash('sha256');
  for (const text of texts) hash.update(`${text.length}:${text}`);
  return { texts, digest: hash.digest('hex') };
}
