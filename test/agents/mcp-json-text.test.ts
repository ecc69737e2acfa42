// MCP answers write listing JSON the store holds as text without parsing it (server/mcp/json-text.ts): the message
// is the one JSON.stringify would give for the parsed values, wherever the text sits, and no string a client or a
// listing holds can change the message.
import { describe, expect, it } from 'vitest';
import { jsonArray, jsonObject, JsonText, stringify } from '../../server/mcp/json-text.ts';

const listings = ['{"id":"a","name":"Ä \\"quoted\\" 🚀","tags":["x"]}', '{"id":"b","description":"line\\nbreak","n":1.5}'];
const parsed = listings.map((text) => JSON.parse(text) as unknown);

describe('JsonText', () => {
  it('writes an object of JSON texts as JSON.stringify writes the parsed values, in the given order', () => {
    const made = jsonObject({ query: 'pdf "tools"', items: jsonArray(listings), hasMore: false, skipped: undefined, type: null });
    expect(made.text).toBe(JSON.stringify({ query: 'pdf "tools"', items: parsed, hasMore: false, type: null }));
    expect(jsonArray([]).text).toBe('[]');
  });

  it('is written verbatim wherever it sits in a message, and everything else as JSON.stringify writes it', () => {
    const structured = jsonObject({ items: jsonArray(listings) });
    const message = { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: structured.text }], structuredContent: structured, also: [new JsonText(listings[1]!)] } };
    const expected = { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: structured.text }], structuredContent: { items: parsed }, also: [parsed[1]] } };
    expect(stringify(message)).toBe(JSON.stringify(expected));
    expect(stringify({ plain: [1, 'two', { three: 3 }] })).toBe(JSON.stringify({ plain: [1, 'two', { three: 3 }] }));
  });

  it('leaves strings that look like its placeholders alone', () => {
    const tricky = { a: '\u0000deadbeefdeadbeef:0\u0000', b: new JsonText('{"x":1}'), c: '\\u0000' };
    expect(JSON.parse(stringify(tricky))).toEqual({ a: tricky.a, b: { x: 1 }, c: '\\u0000' });
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
      { a: undefined, b: () => 1, c: Symbol('s'), d: null, e: [{}], '"key"': 'v', 2: 'numeric key first' },
      { when: new Date(Date.UTC(2026, 10, 23)), nested: { toJSON: () => ({ replaced: [1, 2] }) } },
      { deep: [[[{ x: [[], [{}]] }]]] },
    ];
    for (const value of values) expect(stringify(value), JSON.stringify(value)).toBe(JSON.stringify(value));
    expect(() => stringify({ big: 1n })).toThrow(TypeError);
  });
});
