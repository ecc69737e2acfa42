// Guarantees the export reader: the format comes from the name or, failing that, the content; a JSON array
// is split into records by one scan that respects strings and nesting, so each record keeps the line it
// starts on and one malformed record is reported alone; gzip is recognised by its bytes.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { detectExportFormat, formatFromContent, jsonArrayElements, readExport } from '../../build/export-reader.ts';
import { scratchDirs } from './scratch.ts';

const tempDir = scratchDirs();

const collect = async (path: string) => {
  const out = [];
  for await (const line of readExport(path)) out.push(line);
  return out;
};

describe('export reader', () => {
  it.each([
    ['[{"id":1}]', 'json'],
    ['\uFEFF  \n[', 'json'],
    ['{"id":1}\n{"id":2}', 'jsonl'],
    ['- id: 1\n', 'yaml'],
    ['---\n- id: 1', 'yaml'],
    ['# a comment\n- id: 1', 'yaml'],
  ] as const)('detects %j as %s by content', (head, format) => {
    expect(formatFromContent(head)).toBe(format);
  });

  it('prefers the file name, and sees through gzip when the name says nothing', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a.yaml'), '[1, 2]');
    expect(await detectExportFormat(join(dir, 'a.yaml'))).toBe('yaml');
    writeFileSync(join(dir, 'blob'), gzipSync('[{"id": "x"}]'));
    expect(await detectExportFormat(join(dir, 'blob'))).toBe('json');
    expect(await collect(join(dir, 'blob'))).toEqual([{ line: 1, value: { id: 'x' } }]);
  });

  it('splits a JSON array on top-level commas only, whatever the strings hold', () => {
    const text = '[\n  {"a": "x, ] } \\" [", "b": [1, {"c": 2}]},\n  "plain",\n  3\n]\n';
    expect([...jsonArrayElements(text)].map((e) => ('source' in e ? [e.line, JSON.parse(e.source)] : e))).toEqual([
      [2, { a: 'x, ] } " [', b: [1, { c: 2 }] }],
      [3, 'plain'],
      [4, 3],
    ]);
    expect([...jsonArrayElements('[]')]).toEqual([]);
  });

  it.each([
    ['not an array', '{"id": 1}', 'not a JSON array'],
    ['an unterminated array', '[{"id": 1},\n{"id": 2}', 'unterminated JSON array'],
    ['text after the array', '[1]\nmore', 'unexpected text after the JSON array'],
  ])('reports %s', (_, text, error) => {
    expect([...jsonArrayElements(text)].filter((e) => 'error' in e).map((e) => (e as { error: string }).error)).toEqual([error]);
  });

  it('reports a malformed record of a JSON array on its own line and reads the others', async () => {
    const path = join(tempDir(), 'x.json');
    writeFileSync(path, '[\n{"id": "a"},\n{"id": nope},\n{"id": "c"}\n]');
    const lines = await collect(path);
    expect(lines.map((l) => [l.line, l.value ?? l.parseError?.slice(0, 8)])).toEqual([
      [2, { id: 'a' }],
      [3, 'not JSON'],
      [4, { id: 'c' }],
    ]);
  });

  it('reads a YAML list with the line each record starts on, and refuses YAML that is not a list', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'x.yaml'), '# export\n- id: a\n  tags: [x, y]\n- id: b\n  updatedAt: 2026-01-26T18:23:37Z\n');
    expect(await collect(join(dir, 'x.yaml'))).toEqual([
      { line: 2, value: { id: 'a', tags: ['x', 'y'] } },
      { line: 4, value: { id: 'b', updatedAt: '2026-01-26T18:23:37Z' } },
    ]);
    writeFileSync(join(dir, 'y.yaml'), 'id: a\n');
    expect((await collect(join(dir, 'y.yaml')))[0]!.parseError).toMatch(/not a YAML list/);
    writeFileSync(join(dir, 'z.yaml'), '- id: a\n  id: b\n');
    expect((await collect(join(dir, 'z.yaml')))[0]!.parseError).toMatch(/not YAML/);
  });
});
