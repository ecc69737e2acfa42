// MCP answers write listing JSON the store holds without parsing it (server/mcp/json-text.ts): the message is the
// UTF-8 of what JSON.stringify would give for the parsed values, wherever the text sits, with a text content that
// is the JSON string of the structured content, for text beyond Latin-1 too, and no string a client or a listing
// holds can change the message.
import { describe, expect, it } from 'vitest';
import { JsonText, JsonTextString, stringify } from '../../server/mcp/json-text.ts';

const listings = ['{"id":"a","name":"Ä \\"quoted\\" 🚀 数据","tags":["x"]}', '{"id":"b","description":"line\\nbreak \\\\ tab\\t","n":1.5}'];
const parsed = listings.map((text) => JSON.parse(text) as unknown);
const items = () => JsonText.fromBytes(Buffer.from(`[${listings.join(',')}]`));
const text = (value: unknown) => stringify(value).toString('utf8');
/** The JSON text a JsonText holds. */
const textOf = (json: JsonText) => Buffer.from(json.bytes, 'latin1').toString('utf8');

describe('JsonText', () => {
  it('writes an object of JSON texts as JSON.stringify writes the parsed values, in the given order', () => {
    const made = JsonText.object({ query: 'pdf "tools" 🚀 ü', items: items(), hasMore: false, skipped: undefined, type: null });
    expect(textOf(made)).toBe(JSON.stringify({ query: 'pdf "tools" 🚀 ü', items: parsed, hasMore: false, type: null }));
    expect(textOf(JsonText.of('[]'))).toBe('[]');
    expect(textOf(JsonText.of('{"ü":"数据"}'))).toBe('{"ü":"数据"}');
  });

  it('is written verbatim wherever it sits in a message, its text content as a JSON string, the rest as JSON.stringify writes it', () => {
    const structured = JsonText.object({ query: 'naïve 数据', items: items() });
    const message = {
      jsonrpc: '2.0',
      id: 'ü-7',
      result: { content: [{ type: 'text', text: new JsonTextString(structured) }], structuredContent: structured, also: [JsonText.of(listings[1]!)] },
    };
    const expected = {
      jsonrpc: '2.0',
      id: 'ü-7',
      result: { content: [{ type: 'text', text: textOf(structured) }], structuredContent: { query: 'naïve 数据', items: parsed }, also: [parsed[1]] },
    };
    expect(text(message)).toBe(JSON.stringify(expected));
    expect(stringify(message).equals(Buffer.from(JSON.stringify(expected)))).toBe(true);
    expect(text({ plain: [1, 'two', { three: 3 }] })).toBe(JSON.stringify({ plain: [1, 'two', { three: 3 }] }));
  });

  it('escapes a text content of every control character and non-ASCII text as JSON.stringify does', () => {
    const nasty = JSON.stringify({
      all: Array.from({ length: 0x20 }, (_, c) => String.fromCharCode(c)).join(''),
      more: '"\\/\u007f\u0080\u00ff\u2028\u2029😀',
    });
    const message = { text: new JsonTextString(JsonText.of(nasty)) };
    expect(text(message)).toBe(JSON.stringify({ text: nasty }));
  });

  it('leaves strings that look like markup of its own alone', () => {
    const tricky = { a: '\u0000deadbeefdeadbeef:0\u0000', b: JsonText.of('{"x":1}'), c: '\\u0000', d: 'Ã¼' };
    expect(JSON.parse(text(tricky))).toEqual({ a: tricky.a, b: { x: 1 }, c: '\\u0000', d: 'Ã¼' });
  });
});

describe('stringify', () => {
  it('writes what JSON.stringify writes for any plain value: leaves, omissions, toJSON, nesting', () => {
    const values: unknown[] = [
      null,
      true,
      0,
      -1.5e300,
      Number.NaN,
      Infinity,
      'text with "quotes", \\ back\nslash, \u0000 nul, \u2028 and 🚀',
      [],
      {},
      [undefined, () => 1, Symbol('s'), null, 1],
      { a: undefined, b: () => 1, c: Symbol('s'), d: null, e: [{}], '"key" ü': 'v', 2: 'numeric key first' },
      { when: new Date(Date.UTC(2026, 10, 23)), nested: { toJSON: () => ({ replaced: [1, 2] }) } },
      { deep: [[[{ x: [[], [{}]] }]]] },
    ];
    for (const value of values) expect(text(value), JSON.stringify(value)).toBe(JSON.stringify(value));
    expect(() => stringify({ big: 1n })).toThrow(TypeError);
  });
});
