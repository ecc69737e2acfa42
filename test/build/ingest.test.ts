// Guarantees the ingest: every record validated, bad records reported with file, line and reason, no
// partial state on failure, --skip-invalid writing the rejects, history kept, and a byte-identical database
// for the same input.
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ingest, IngestError } from '../../build/stages/ingest-stage.ts';
import { openCatalogDb } from '../../build/sqlite-store.ts';
import { sampleRecords, tempDir, writeExport } from '../support/fixtures.ts';

const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

/** Every row of a store, table by table in key order: what two stores written different ways must share. */
function storeRows(path: string): Record<string, unknown[]> {
  const db = openCatalogDb(path);
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[];
    return Object.fromEntries(tables.map((table) => [table, db.prepare(`SELECT * FROM ${table} ORDER BY 1, 2`).all()]));
  } finally {
    db.close();
  }
}

describe('ingest', () => {
  it('writes listings, stored files and the install history', async () => {
    const dir = tempDir();
    const records = sampleRecords(20, ['pdf']);
    const report = await ingest({ exportPath: writeExport(dir, records), database: join(dir, 'c.db') });
    expect(report.listings).toBe(records.length);
    expect(report.rejected).toEqual([]);
    const db = openCatalogDb(join(dir, 'c.db'));
    expect((db.prepare('SELECT count(*) n FROM listing').get() as { n: number }).n).toBe(records.length);
    const pdfFiles = db.prepare("SELECT path FROM listing_file WHERE listing_id = 'skill:anthropics/skills#pdf' ORDER BY ord").all() as Array<{ path: string }>;
    expect(pdfFiles.map((f) => f.path)).toEqual(records.find((r) => r.slug === 'pdf')!.files);
    const history = db.prepare("SELECT first_day, daily FROM install_history WHERE listing_id = 'skill:anthropics/skills#pdf'").get() as {
      first_day: string;
      daily: string;
    };
    expect(JSON.parse(history.daily)).toEqual(records.find((r) => r.slug === 'pdf')!.installsHistory);
    expect(history.first_day).toBe('2026-03-18');
    db.close();
  });

  it('reuses the checks and merges of a store written by the same code only', async () => {
    const dir = tempDir();
    const records = sampleRecords(6);
    const database = join(dir, 'c.db');
    await ingest({ exportPath: writeExport(dir, records, 'a.jsonl'), database, codeFingerprint: 'code-1' });
    // A record the schema refuses, stored as if an older schema had let it through.
    const loose = { ...records[2]!, description: 42 };
    const db = new Database(database);
    db.prepare('UPDATE listing SET record = ? WHERE id = ?').run(JSON.stringify(loose), loose.id);
    db.close();
    const next = [...records.map((r) => JSON.stringify(r === records[2] ? loose : r))];
    next[4] = JSON.stringify({ ...records[4]!, description: 'Changed.' });
    writeFileSync(join(dir, 'b.jsonl'), next.join('\n') + '\n');
    // Same code: the record byte-equal to the store is not checked again; the changed one is.
    const copy = join(dir, 'copy.db');
    copyFileSync(database, copy);
    const same = await ingest({ exportPath: join(dir, 'b.jsonl'), database: copy, codeFingerprint: 'code-1', listChanges: true });
    expect(same.changes?.changed).toEqual([records[4]!.id]);
    // Other code checks every record again.
    await expect(ingest({ exportPath: join(dir, 'b.jsonl'), database, codeFingerprint: 'code-2' })).rejects.toThrow(/1 invalid record/);
    await expect(ingest({ exportPath: join(dir, 'b.jsonl'), database })).rejects.toThrow(/1 invalid record/);
  });

  it('writes the same database whether it reused the previous store or not', async () => {
    const dir = tempDir();
    const all = sampleRecords(13, ['pdf']);
    const records = all.slice(0, 12);
    const [a, b] = [join(dir, 'a.db'), join(dir, 'b.db')];
    await ingest({ exportPath: writeExport(dir, records, 'one.jsonl'), database: a, codeFingerprint: 'code-1' });
    copyFileSync(a, b);
    // Every fourth listing's installs move, one listing leaves (its history is carried) and another comes.
    const changed = [
      ...records
        .filter((_, i) => i !== 7)
        .map((r, i) => (i % 4 === 0 ? { ...r, installs: r.installs + 3, installsHistory: [...r.installsHistory.slice(0, -1), r.installs + 3] } : r)),
      all[12]!,
    ];
    const next = writeExport(dir, changed, 'two.jsonl');
    expect((await ingest({ exportPath: next, database: a, codeFingerprint: 'code-1' })).written).toBe('in place');
    // The store b replaces records other code: nothing is reused, and the code is recorded the same.
    const other = new Database(b);
    other.prepare("UPDATE meta SET value = 'code-0' WHERE key = 'ingestCode'").run();
    other.close();
    expect((await ingest({ exportPath: next, database: b, codeFingerprint: 'code-1' })).written).toBe('anew');
    expect(storeRows(a)).toEqual(storeRows(b));
    expect(storeRows(a).listing).toHaveLength(records.length);
    expect(storeRows(a).install_history).toHaveLength(records.length + 1);
  });

  it('copies the unchanged rows of a store of the same code, and merges a history that store lacks', async () => {
    const dir = tempDir();
    const records = sampleRecords(12, ['pdf']);
    const [a, b] = [join(dir, 'a.db'), join(dir, 'b.db')];
    await ingest({ exportPath: writeExport(dir, records, 'one.jsonl'), database: a, codeFingerprint: 'code-1' });
    // The history of an unchanged listing is gone from the store: it is merged from the export, as without reuse.
    const store = new Database(a);
    store.prepare('DELETE FROM install_history WHERE listing_id = ?').run(records[5]!.id);
    store.close();
    copyFileSync(a, b);
    const other = new Database(b);
    other.prepare("UPDATE meta SET value = 'code-0' WHERE key = 'ingestCode'").run();
    other.close();
    const changed = records.map((r, i) => (i === 1 ? { ...r, description: `${r.description} Changed.` } : r));
    const next = writeExport(dir, changed, 'two.jsonl');
    const [same, fresh] = [
      await ingest({ exportPath: next, database: a, codeFingerprint: 'code-1' }),
      await ingest({ exportPath: next, database: b, codeFingerprint: 'code-1' }),
    ];
    expect(same.historyRows).toBe(fresh.historyRows);
    expect([same.written, fresh.written]).toEqual(['in place', 'anew']);
    expect(storeRows(a)).toEqual(storeRows(b));
    const db = openCatalogDb(a);
    const rows = db.prepare('SELECT listing_id FROM install_history').pluck().all();
    expect(rows).toHaveLength(records.length);
    expect(db.prepare('SELECT record FROM listing WHERE id = ?').pluck().get(records[1]!.id)).toContain('Changed.');
    db.close();
  });

  it('a process killed while it updated the store in place leaves the store as it was to every reader', async () => {
    const dir = tempDir();
    const records = sampleRecords(30);
    const database = join(dir, 'c.db');
    await ingest({ exportPath: writeExport(dir, records, 'one.jsonl'), database, codeFingerprint: 'code-1' });
    const before = storeRows(database);
    // What an ingest killed inside its transaction leaves: rows changed in the file (a cache of one page spills them)
    // and the rollback journal that undoes them.
    const child = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { createRequire } from 'node:module';
         const Database = createRequire(${JSON.stringify(join(process.cwd(), 'package.json'))})('better-sqlite3');
         const db = new Database(${JSON.stringify(database)});
         db.pragma('cache_size = 1');
         db.exec('BEGIN');
         db.prepare("UPDATE listing SET record = '{}'").run();
         db.prepare('DELETE FROM install_history').run();
         process.kill(process.pid, 'SIGKILL');`,
      ],
      { encoding: 'utf8' },
    );
    expect(child.signal).toBe('SIGKILL');
    expect(existsSync(`${database}-journal`)).toBe(true);
    expect(storeRows(database)).toEqual(before);
    expect(existsSync(`${database}-journal`)).toBe(false);
    const changed = records.map((r, i) => (i === 3 ? { ...r, description: 'Changed.' } : r));
    const report = await ingest({ exportPath: writeExport(dir, changed, 'two.jsonl'), database, codeFingerprint: 'code-1' });
    expect([report.changed, report.written]).toEqual([1, 'in place']);
  });

  it('re-running on the same input yields a byte-identical database', async () => {
    const dir = tempDir();
    const exportPath = writeExport(dir, sampleRecords(15));
    await ingest({ exportPath, database: join(dir, 'a.db') });
    const first = sha(join(dir, 'a.db'));
    await ingest({ exportPath, database: join(dir, 'a.db') });
    expect(sha(join(dir, 'a.db'))).toBe(first);
    await ingest({ exportPath, database: join(dir, 'b.db') });
    expect(sha(join(dir, 'b.db'))).toBe(first);
  });

  it.each([
    ['a line that is not JSON', () => '{"id": "broken', /not JSON/],
    ['a bad type', (r: Record<string, unknown>) => JSON.stringify({ ...r, type: 'robot' }), /type/],
    ['negative installs', (r: Record<string, unknown>) => JSON.stringify({ ...r, installs: -1 }), /installs/],
    ['an id that does not match type/repo/slug', (r: Record<string, unknown>) => JSON.stringify({ ...r, id: 'skill:x/y#z' }), /id: must be/],
    ['a missing name', (r: Record<string, unknown>) => JSON.stringify({ ...r, name: undefined }), /name/],
    ['a decreasing history', (r: Record<string, unknown>) => JSON.stringify({ ...r, installsHistory: [5, 3, r.installs] }), /installsHistory/],
    ['a bad slug', (r: Record<string, unknown>) => JSON.stringify({ ...r, slug: 'Not A Slug' }), /slug/],
  ])('refuses %s with file, line and reason and leaves the previous database untouched', async (_, corrupt, reason) => {
    const dir = tempDir();
    const records = sampleRecords(5);
    const database = join(dir, 'c.db');
    await ingest({ exportPath: writeExport(dir, records, 'good.jsonl'), database });
    const before = sha(database);
    const bad = [...records.map((r) => JSON.stringify(r))];
    bad[3] = corrupt(records[3] as unknown as Record<string, unknown>);
    const badPath = writeExport(dir, bad, 'bad.jsonl');
    const error = await ingest({ exportPath: badPath, database }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IngestError);
    const rejects = (error as IngestError).rejects;
    expect(rejects).toHaveLength(1);
    expect(rejects[0]!.file).toBe(badPath);
    expect(rejects[0]!.line).toBe(4);
    expect(rejects[0]!.reason).toMatch(reason);
    expect(sha(database)).toBe(before);
    expect(existsSync(`${database}.tmp-${process.pid}`)).toBe(false);
  });

  it('refuses duplicate ids and slugs', async () => {
    const dir = tempDir();
    const records = sampleRecords(3);
    const error = (await ingest({ exportPath: writeExport(dir, [...records, records[0]!]), database: join(dir, 'c.db') }).catch(
      (e: unknown) => e,
    )) as IngestError;
    expect(error.rejects[0]!.reason).toMatch(/duplicate id/);
    expect(existsSync(join(dir, 'c.db'))).toBe(false);
  });

  it('--skip-invalid ingests the rest and writes the rejects to a file', async () => {
    const dir = tempDir();
    const records = sampleRecords(5).filter((r) => !r.files);
    const lines = records.map((r) => JSON.stringify(r));
    lines.splice(2, 0, 'not json at all', JSON.stringify({ ...records[0], slug: 'x', id: 'bad' }));
    const rejectsPath = join(dir, 'rejects.jsonl');
    const report = await ingest({ exportPath: writeExport(dir, lines), database: join(dir, 'c.db'), skipInvalid: true, rejectsPath });
    expect(report.listings).toBe(records.length);
    expect(report.rejected.map((r) => r.line)).toEqual([3, 4]);
    const written = readFileSync(rejectsPath, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(written.map((r: { line: number }) => r.line)).toEqual([3, 4]);
    expect(written[0].reason).toMatch(/not JSON/);
    expect(statSync(join(dir, 'c.db')).size).toBeGreaterThan(0);
  });

  it('a later export keeps the earlier days of the install history and reports changes', async () => {
    const dir = tempDir();
    const [a, b, c] = sampleRecords(1);
    const database = join(dir, 'c.db');
    await ingest({ exportPath: writeExport(dir, [a!, b!, c!], 'day1.jsonl'), database });
    const shifted = (r: typeof a) => {
      const history = [...r!.installsHistory.slice(1), r!.installs + 10];
      return { ...r!, installs: r!.installs + 10, installsHistory: history, metrics: { ...r!.metrics, installsAsOf: '2026-04-17' } };
    };
    const report = await ingest({ exportPath: writeExport(dir, [shifted(a), b!], 'day2.jsonl'), database });
    expect({ added: report.added, changed: report.changed, removed: report.removed, unchanged: report.unchanged }).toEqual({
      added: 0,
      changed: 1,
      removed: 1,
      unchanged: 1,
    });
    const db = openCatalogDb(database);
    const row = db.prepare('SELECT first_day, daily FROM install_history WHERE listing_id = ?').get(a!.id) as { first_day: string; daily: string };
    const daily = JSON.parse(row.daily) as number[];
    expect(row.first_day).toBe('2026-03-18');
    expect(daily).toHaveLength(31);
    expect(daily[0]).toBe(a!.installsHistory[0]);
    expect(daily[30]).toBe(a!.installs + 10);
    db.close();
  });
});
