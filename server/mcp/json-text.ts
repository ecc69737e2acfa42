// A tool's structured output made of listings is mostly listing JSON the store already holds. Parsing it only to
// serialise it again (twice: as structuredContent and as the text content) was a third of an MCP search's time.
// JsonText carries a value already serialised; stringify() writes it verbatim wherever it sits in a message.
//
// JSON is kept here as a byte string: its UTF-8 bytes, one character per byte (latin1). A listing with one character
// beyond Latin-1 made every message holding it a two-byte string, which JSON.stringify escaped (the text content)
// and Buffer.from encoded at about half the speed. On a byte string both run on one-byte text, and the message's
// bytes are the string's characters. JSON.stringify escapes a byte string exactly as it escapes the text it holds:
// the characters it escapes (", \ and controls) are ASCII, and the bytes of any other character are all >= 0x80.

/** A JavaScript string as a byte string (ASCII is both). */
function toBytes(text: string): string {
  return MAYBE_NON_ASCII.test(text) ? Buffer.from(text).toString('latin1') : text;
}

/** Anything but printable ASCII and whitespace (a rare control character is converted too: it is its own byte). */
const MAYBE_NON_ASCII = /[^ -~\t\n\r]/u;

export class JsonText {
  /** The UTF-8 bytes of valid JSON, one character per byte. */
  readonly bytes: string;

  private constructor(bytes: string) {
    this.bytes = bytes;
  }

  /** JSON text as JavaScript holds it. */
  static of(text: string): JsonText {
    return new JsonText(toBytes(text));
  }

  /** JSON as UTF-8 bytes (the store's listings). */
  static fromBytes(bytes: Buffer): JsonText {
    return new JsonText(bytes.toString('latin1'));
  }

  /** JSON text of an object whose fields are JSON texts already (listings as stored), in the order given. */
  static object(fields: Record<string, JsonText | unknown>): JsonText {
    const parts: string[] = [];
    for (const [name, value] of Object.entries(fields)) {
      if (value === undefined) continue;
      parts.push(`${toBytes(JSON.stringify(name))}:${value instanceof JsonText ? value.bytes : toBytes(JSON.stringify(value))}`);
    }
    return new JsonText(`{${parts.join(',')}}`);
  }
}

/** A JSON string whose value is a JsonText's text: a tool result's text content, escaped from the bytes. */
export class JsonTextString {
  readonly json: JsonText;
  constructor(json: JsonText) {
    this.json = json;
  }
}

/**
 * JSON.stringify as UTF-8 bytes, with every JsonText in `value` written verbatim and every JsonTextString as the
 * JSON string of its text. A walk of the message rather than a replacer function: a replacer puts JSON.stringify
 * on its slow path for the whole message and needs a pass over the result to swap placeholders back
 * (bench/records/2026-11-23-per-request-costs.md). Plain values are written by JSON.stringify itself.
 */
export function stringify(value: unknown): Buffer {
  const parts: string[] = [];
  write(value, parts);
  return Buffer.from(parts.join(''), 'latin1');
}

/** Writes `value` as JSON.stringify would; false (nothing written) for what JSON leaves out: undefined, functions, symbols. */
function write(value: unknown, out: string[]): boolean {
  if (value instanceof JsonText) {
    out.push(value.bytes);
    return true;
  }
  if (value instanceof JsonTextString) {
    out.push(JSON.stringify(value.json.bytes));
    return true;
  }
  if (typeof value === 'object' && value !== null) {
    if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return write((value as { toJSON(): unknown }).toJSON(), out);
    if (Array.isArray(value)) {
      out.push('[');
      for (let i = 0; i < value.length; i++) {
        if (i > 0) out.push(',');
        if (!write(value[i], out)) out.push('null');
      }
      out.push(']');
      return true;
    }
    out.push('{');
    let first = true;
    for (const key of Object.keys(value)) {
      const field = (value as Record<string, unknown>)[key];
      if (field === undefined || typeof field === 'function' || typeof field === 'symbol') continue;
      const name = toBytes(JSON.stringify(key));
      out.push(first ? `${name}:` : `,${name}:`);
      first = false;
      write(field, out);
    }
    out.push('}');
    return true;
  }
  const text = JSON.stringify(value) as string | undefined;
  if (text === undefined) return false;
  out.push(toBytes(text));
  return true;
}
