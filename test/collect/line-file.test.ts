// Large exports are read by line number without being held: every non-blank line is found (CRLF, a last line with
// no newline, lines across read chunks, multi-byte characters), and the spool returns exactly what was appended.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LineFile, Spool } from '../../build/collect/line-file.ts';
import { scratchDirs } from '../cycle/scratch.ts';

const scratch = scratchDirs();

describe('LineFile and Spool', () => {
  it('indexes non-blank lines, with CRLF and no final newline', async () => {
    const path = join(scratch('lines-'), 'a.jsonl');
    writeFileSync(path, '{"a":1}\n\n  \t\n{"b":"é✓"}\r\n{"c":3}');
    const file = await LineFile.open(path);
    expect([...Array(file.count).keys()].map((i) => file.read(i))).toEqual(['{"a":1}', '{"b":"é✓"}', '{"c":3}']);
    file.close();
  });

  it("finds lines that cross the reader's chunks", async () => {
    const path = join(scratch('lines-'), 'b.jsonl');
    const lines = Array.from({ length: 3000 }, (_, i) => JSON.stringify({ i, pad: 'x'.repeat(i % 97), text: 'ünïcödé' }));
    writeFileSync(path, `${lines.join('\n')}\n`);
    const file = await LineFile.open(path);
    expect(file.count).toBe(3000);
    for (const i of [0, 1, 999, 1500, 2999]) expect(file.read(i)).toBe(lines[i]);
    file.close();
  });

  it('spools text and reads it back by handle', () => {
    const spool = new Spool(join(scratch('spool-'), 'spool'));
    const handles = ['first', 'zweite ✓', ''].map((text) => spool.append(text));
    expect(handles.map((at) => spool.read(at))).toEqual(['first', 'zweite ✓', '']);
    spool.close();
  });
});
