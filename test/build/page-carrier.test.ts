// The page carrier links the pages a renderer's page-inputs file marks carried from the previous build's site, with
// the variants the line names and no others, leaves rendered pages alone, never writes to the previous build, and
// fails with the file it could not link.
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PageCarrier } from '../../build/page-carrier.ts';
import { tempDir } from '../support/fixtures.ts';

const write = (path: string, body: string) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, body);
};

describe('page carrier', () => {
  const dir = tempDir('catalog-page-carrier-');

  it('links each carried page with the variants its line names, share by share', async () => {
    const previous = join(dir, 'a', 'site');
    write(join(previous, 'listings/big.html'), 'big');
    write(join(previous, 'listings/big.html.br'), 'br');
    write(join(previous, 'listings/big.html.gz'), 'gz');
    write(join(previous, 'listings/small.html'), 'small');
    // A variant the line does not name is not linked (the page had none when that build recorded it).
    write(join(previous, 'owners/o.html'), 'owner');
    write(join(previous, 'owners/o.html.br'), 'stray');
    // A page in a folder of its own is carried too (a layout some build before this one may have had).
    write(join(previous, 'owners/p/index.html'), 'nested');
    write(join(dir, 'a', 'inputs-0.tsv'), 'listings/big.html\th1\to\t0\t.br,.gz\nlistings/changed.html\th2\to\t1\t\n');
    write(join(dir, 'a', 'inputs-1.tsv'), 'listings/small.html\th3\tp\t0\t\nowners/o.html\th4\to\t0\t\nowners/p/index.html\th5\tp\t0\t\n');
    const to = join(dir, 'a', 'carried');
    const carrier = new PageCarrier(previous, to);
    try {
      carrier.carry(join(dir, 'a', 'inputs-0.tsv'));
      carrier.carry(join(dir, 'a', 'inputs-1.tsv'));
      expect(await carrier.done()).toBe(4);
    } finally {
      await carrier.close();
    }
    expect(readdirSync(join(to, 'listings')).sort()).toEqual(['big.html', 'big.html.br', 'big.html.gz', 'small.html']);
    expect(statSync(join(to, 'listings/big.html.br')).ino).toBe(statSync(join(previous, 'listings/big.html.br')).ino);
    expect(readdirSync(join(to, 'owners')).sort()).toEqual(['o.html', 'p']);
    expect(readFileSync(join(to, 'owners/p/index.html'), 'utf8')).toBe('nested');
    expect(carrier.seconds).toBeGreaterThan(0);
  });

  it('fails, naming the page, when a carried page is not in the previous build', async () => {
    const previous = join(dir, 'b', 'site');
    mkdirSync(previous, { recursive: true });
    write(join(dir, 'b', 'inputs-0.tsv'), 'listings/missing.html\th1\to\t0\t\n');
    const carrier = new PageCarrier(previous, join(dir, 'b', 'carried'));
    try {
      carrier.carry(join(dir, 'b', 'inputs-0.tsv'));
      await expect(carrier.done()).rejects.toThrow(/inputs-0\.tsv failed: .*ENOENT.*listings\/missing\.html/);
    } finally {
      await carrier.close();
    }
  });
});
