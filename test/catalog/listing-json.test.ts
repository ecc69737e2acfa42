// A listing's public JSON is its stored JSON plus its page URL on this service (server/catalog/listing-json.ts),
// whether it is assembled as bytes (listing routes) or as text (MCP, A2A, ARD, the registry, /browse): for every
// listing of the embedded snapshot, in any order, for each base URL the shim may be configured with.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedBuildDir } from '../support/shared-build.ts';
import { listingsBody, listingsJson } from '../../server/catalog/listing-json.ts';
import { loadSnapshot, type Snapshot } from '../../server/catalog/snapshot.ts';

let snapshot: Snapshot;
let stored: Array<Record<string, unknown>>;
beforeAll(async () => {
  snapshot = loadSnapshot(await sharedBuildDir());
  const lines = readFileSync(join(snapshot.buildDir, 'runtime', 'listings.jsonl'), 'utf8')
    .trim()
    .split('\n');
  stored = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
});
afterAll(() => snapshot.close());

function expected(doc: number, base: string): Record<string, unknown> {
  return { ...stored[doc], url: `${base}/listings/${snapshot.store.slugOf(doc)}/` };
}

describe('listing JSON with its page URL', () => {
  it('is the stored listing plus its url, as bytes and as text, for every listing', () => {
    const base = 'https://catalog.example';
    // Backwards, so the url table fills out of order and grows several times along the way.
    const docs = Array.from({ length: snapshot.store.count }, (_, i) => snapshot.store.count - 1 - i);
    const body = listingsBody(snapshot, docs, { baseUrl: base, head: Buffer.from('{"items":['), tail: Buffer.from('],"n":1}') });
    const array = (JSON.parse(body.toString('utf8')) as { items: unknown[] }).items;
    expect(array).toEqual(docs.map((doc) => expected(doc, base)));
    // Sized exactly: not a byte of the allocation is left over.
    expect(body.toString('utf8').endsWith('],"n":1}')).toBe(true);
    expect(JSON.parse(listingsBody(snapshot, [3], { baseUrl: base }).toString('utf8'))).toEqual(expected(3, base));
    expect(listingsJson(base, snapshot, docs).map((text) => JSON.parse(text) as unknown)).toEqual(array);
  });

  it('wraps each listing when asked: its own opening in place of the brace, and a closing after it', () => {
    const base = 'https://catalog.example';
    const docs = [7, 0, snapshot.store.count - 1];
    const wrap = { open: (i: number) => Buffer.from(`{"n":${i},"item":{"extra":"é",`), close: Buffer.from('}') };
    const body = listingsBody(snapshot, docs, { baseUrl: base, head: Buffer.from('['), tail: Buffer.from(']'), wrap });
    expect(JSON.parse(body.toString('utf8'))).toEqual(docs.map((doc, i) => ({ n: i, item: { extra: 'é', ...expected(doc, base) } })));
    expect(listingsBody(snapshot, [], { baseUrl: base, head: Buffer.from('['), tail: Buffer.from(']'), wrap }).toString()).toBe('[]');
  });

  it('gives each base URL its own urls, and the same bytes when asked again', () => {
    const docs = [5, 0, 5, 3];
    const a = listingsJson('http://a.test', snapshot, docs).map((text) => JSON.parse(text) as { url: string });
    const b = listingsJson('http://b.test:8080/sub', snapshot, docs).map((text) => JSON.parse(text) as { url: string });
    expect(a.map((l) => l.url)).toEqual(docs.map((doc) => expected(doc, 'http://a.test').url));
    expect(b.map((l) => l.url)).toEqual(docs.map((doc) => expected(doc, 'http://b.test:8080/sub').url));
    expect(listingsJson('http://a.test', snapshot, docs)).toEqual(listingsJson('http://a.test', snapshot, docs));
    expect(listingsBody(snapshot, [], { baseUrl: 'http://a.test', head: Buffer.from('['), tail: Buffer.from(']') }).toString()).toBe('[]');
    expect(listingsBody(snapshot, [], { baseUrl: 'http://a.test' }).length).toBe(0);
  });
});
