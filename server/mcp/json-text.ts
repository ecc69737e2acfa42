// A tool's structured output made of listings is mostly listing JSON the store already holds as text. Parsing it
// only to serialise it again (twice: as structuredContent and as the text content) was a third of an MCP search's
// time. JsonText carries a value already serialised; stringify() writes it verbatim wherever it sits in a message.
import { randomBytes } from 'node:crypto';

export class JsonText {
  /** Valid JSON, written as it is. */
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

/** JSON text of an object whose fields are JSON texts already (listings as stored), in the order given. */
export function jsonObject(fields: Record<string, JsonText | unknown>): JsonText {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    parts.push(`${JSON.stringify(name)}:${value instanceof JsonText ? value.text : JSON.stringify(value)}`);
  }
  return new JsonText(`{${parts.join(',')}}`);
}

/** A JSON array of JSON texts. */
export function jsonArray(items: readonly string[]): JsonText {
  return new JsonText(`[${items.join(',')}]`);
}

// Stands for the i-th JsonText while JSON.stringify runs. The NUL characters come out escaped ("\u0000"), so no
// string of a message can collide with the mark unless it holds this process's random nonce too.
const NONCE = randomBytes(8).toString('hex');
const MARK = new RegExp(`"\\\\u0000${NONCE}:(\\d+)\\\\u0000"`, 'g');

/** JSON.stringify, with every JsonText in `value` written verbatim. */
export function stringify(value: unknown): string {
  const texts: string[] = [];
  const text = JSON.stringify(value, (_key, field: unknown) => {
    if (!(field instanceof JsonText)) return field;
    texts.push(field.text);
    return `\u0000${NONCE}:${texts.length - 1}\u0000`;
  });
  return texts.length === 0 ? text : text.replace(MARK, (_match, index: string) => texts[Number(index)]!);
}
