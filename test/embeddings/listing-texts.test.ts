// Guarantees: the embeddings stage's reader of runtime/listings.jsonl gives each line the text JSON.parse would give
// (lines it reads by their leading fields and lines it must parse whole alike, across chunk boundaries), and its
// digest is equal only for the same texts in the same order.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readListingTexts } from '../../build/stages/embeddings/listing-texts.ts';
import { listingText } from '../../src/embeddings/embedder.ts';
import { snapshotRecords } from '../support/fixtures.ts';

const dir = mkdtempSync(join(tmpdir(), 'catalog-listing-texts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

async function read(lines: readonly string[]): Promise<{ texts: string[]; digest: string }> {
  const path = join(dir, `listings-${++files}.jsonl`);
  writeFileSync(path, lines.map((line) => `${line}\n`).join(''));
  return readListingTexts(path);
}

const expected = (lines: readonly string[]) => lines.filter((line) => line.length > 0).map((line) => listingText(JSON.parse(line) as { name?: string }));

describe('readListingTexts', () => {
  it('gives every line the text of the line parsed whole', async () => {
    const lines = [
      // The index stage's shape: short string fields, then name and description, then the rest.
      JSON.stringify({ id: 'skill:a', slug: 'a', type: 'skill', name: 'Alpha', description: 'Does a thing.', installs: 3, tags: ['x'] }),
      JSON.stringify({ id: 'skill:b', name: '  Padded  ', description: null, owner: { name: 'not this one' } }),
      JSON.stringify({ id: 'skill:c', name: 'Quotes "and" \\ backslashes \\', description: 'Ends with a backslash \\' }),
      JSON.stringify({ id: 'skill:d', name: 'Ünïcødé ✓ 😀', description: 'Line\nbreak\tand \u0000 nul and \u2028' }),
      JSON.stringify({ id: 'skill:e', 'na\\me': 'a key that is not name', name: 'Escaped key before', description: 'x' }),
      // Parsed whole: another key order, a number or an object before the texts, a key spelled with an escape,
      // white space, a key given twice before the other text's (once both are read the line is not read on: the
      // index stage writes it with JSON.stringify, which never writes a key twice), fields missing.
      JSON.stringify({ description: 'Description first', name: 'Then name', id: 'skill:f' }),
      JSON.stringify({ installs: 7, name: 'After a number', description: 'd' }),
      JSON.stringify({ owner: { name: 'nested first', description: 'nested' }, name: 'Top', description: 'level' }),
      '{"id":"skill:g","na\\u006de":"Escaped name key","description":"d"}',
      '{ "name": "Spaced", "description": "out" }',
      '{"name":"First","name":"Second","description":"twice"}',
      '{"name":"First","name":"Second","id":"x","description":"twice"}',
      JSON.stringify({ id: 'skill:h', slug: 'h' }),
      JSON.stringify({ name: 'Only a name' }),
      '{"name":null,"description":"Null name"}',
      '',
    ];
    expect((await read(lines)).texts).toEqual(expected(lines));
  });

  it('reads a file longer than a chunk, lines split across chunks, CRLF endings and a last line without one', async () => {
    const records = snapshotRecords();
    const lines = Array.from({ length: 4000 }, (_, i) => JSON.stringify(records[i % records.length]));
    expect(lines.join('\n').length).toBeGreaterThan(2 ** 21);
    expect((await read(lines)).texts).toEqual(expected(lines));
    const path = join(dir, 'crlf.jsonl');
    writeFileSync(path, `${lines.slice(0, 3).join('\r\n')}\r\n${lines[3]}`);
    expect((await readListingTexts(path)).texts).toEqual(expected(lines.slice(0, 4)));
  });

  it('digests the texts in order: other fields do not count, order and boundaries do', async () => {
    const line = (name: string, description: string, installs = 1) => JSON.stringify({ id: `skill:${name}`, name, description, installs });
    const base = await read([line('a', 'one'), line('b', 'two')]);
    expect((await read([line('a', 'one', 9), line('b', 'two', 5)])).digest).toBe(base.digest);
    expect((await read([line('b', 'two'), line('a', 'one')])).digest).not.toBe(base.digest);
    // The same characters split otherwise between the texts.
    expect((await read([JSON.stringify({ name: 'ab' }), JSON.stringify({ name: 'c' })])).digest).not.toBe(
      (await read([JSON.stringify({ name: 'a' }), JSON.stringify({ name: 'bc' })])).digest,
    );
  });
});
