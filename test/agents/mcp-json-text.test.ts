// MCP answers write listing JSON the store holds as text without parsing it (server/mcp/json-text.ts): the message
// is the one JSON.stringify would give for the parsed values, wherever the text sits, and no string a client or a
// listing holds can be mistaken for a placeholder.
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
