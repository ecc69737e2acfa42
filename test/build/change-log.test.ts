// The per-build change log (build/change-log.ts): it lists exactly the records added, changed and removed
// between two exports, read from their files line by line, and patching the old export with it yields the new
// export byte for byte.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChangeLogSchema, idOf, lineDigest, patchExport, writeChangeLog, type ChangeLog } from '../../build/change-log.ts';
import type { ListingRecord } from '../../src/domain/schemas.ts';
import { sampleRecords } from '../support/fixtures.ts';

/** An export's text as the build writes it: one record per line, installs desc then id asc. */
const exportText = (records: ListingRecord[]) =>
  [...records]
    .sort((a, b) => b.installs - a.installs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((r) => JSON.stringify(r) + '\n')
    .join('');

function nextSnapshot(records: ListingRecord[]): { next: ListingRecord[]; removed: string[]; changed: string[]; added: string[] } {
  const removed = [records[3]!.id, records[17]!.id];
  const changed = [records[0]!.id, records[9]!.id, records[30]!.id];
  const next = records
    .filter((r) => !removed.includes(r.id))
    .map((r) => {
      if (!changed.includes(r.id)) return r;
      const installs = r.installs + 5_000_000;
      return { ...r, installs, installsHistory: [...r.installsHistory.slice(0, -1), installs] };
    });
  const base = records[5]!;
  const copy: ListingRecord = { ...base, slug: `${base.slug}-two`, id: `${base.type}:${base.repo}#${base.slug}-two`, name: `${base.name} two` };
  next.push(copy);
  return { next, removed, changed, added: [copy.id] };
}

describe('change log', () => {
  const records = sampleRecords(12);
  const before = exportText(records);
  const { next, removed, changed, added } = nextSnapshot(records);
  const after = exportText(next);
  const dir = mkdtempSync(join(tmpdir(), 'catalog-changes-'));
  const file = join(dir, 'listings.jsonl');
  writeFileSync(file, before);
  let logs = 0;
  /** The log between `previous` (an export file) and an export of `text`, as written and read back. */
  const changeLog = async (
    previous: { snapshotHash: string; exportFile: string; digestsFile?: string } | undefined,
    next: { snapshotHash: string; exportText: string },
  ): Promise<ChangeLog> => {
    const exportFile = join(dir, `next-${++logs}.jsonl`);
    writeFileSync(exportFile, next.exportText);
    const out = join(dir, `changes-${logs}.json`);
    await writeChangeLog(previous, { snapshotHash: next.snapshotHash, exportFile }, out);
    const text = readFileSync(out, 'utf8');
    const log = ChangeLogSchema.parse(JSON.parse(text));
    // Written piece by piece, it is the text JSON.stringify would give.
    expect(text).toBe(JSON.stringify(log));
    return log;
  };

  it('lists what was added, changed and removed, with the digest of each record', async () => {
    const log = await changeLog({ snapshotHash: 'old', exportFile: file }, { snapshotHash: 'new', exportText: after });
    expect(log).toMatchObject({ from: 'old', to: 'new' });
    expect(log.added.map((e) => e.id)).toEqual(added);
    expect(log.changed.map((e) => e.id).sort()).toEqual([...changed].sort());
    expect(log.removed.map((e) => e.id).sort()).toEqual([...removed].sort());
    const line = after.split('\n').find((l) => l.includes(`"id":"${added[0]}"`))!;
    expect(log.added[0]!.sha256).toBe(lineDigest(line));
    expect(log.records).toHaveLength(added.length + changed.length);
  });

  it('patching the old export with it yields the new export exactly', async () => {
    const log = await changeLog({ snapshotHash: 'old', exportFile: file }, { snapshotHash: 'new', exportText: after });
    expect(await patchExport(before, 'old', log)).toBe(after);
  });

  it('does not patch an export of another snapshot, nor from a log without a base', async () => {
    const log = await changeLog({ snapshotHash: 'old', exportFile: file }, { snapshotHash: 'new', exportText: after });
    expect(await patchExport(before, 'other', log)).toBeUndefined();
    const first = await changeLog(undefined, { snapshotHash: 'new', exportText: after });
    expect(first).toMatchObject({ from: null, changed: [], removed: [], records: [] });
    expect(first.added).toHaveLength(next.length);
    expect(await patchExport(before, 'old', first)).toBeUndefined();
  });

  it('takes the previous export from the digests file its build wrote, unless that file is of another snapshot or cut short', async () => {
    const fromExport = await changeLog({ snapshotHash: 'old', exportFile: file }, { snapshotHash: 'new', exportText: after });
    const digestsFile = join(dir, 'old-digests.txt');
    await writeChangeLog(undefined, { snapshotHash: 'old', exportFile: file, digestsOut: digestsFile }, join(dir, 'changes-old.json'));
    // An export file with nothing in it: whatever the log knows of the previous export comes from the digests file.
    const emptied = join(dir, 'emptied.jsonl');
    writeFileSync(emptied, '');
    const previous = { snapshotHash: 'old', exportFile: emptied, digestsFile };
    expect(await changeLog(previous, { snapshotHash: 'new', exportText: after })).toEqual(fromExport);
    const everythingAdded = { added: expect.any(Array), changed: [], removed: [] };
    expect(await changeLog({ ...previous, snapshotHash: 'other' }, { snapshotHash: 'new', exportText: after })).toMatchObject(everythingAdded);
    writeFileSync(digestsFile, readFileSync(digestsFile, 'utf8').split('\n').slice(0, -3).join('\n') + '\n');
    expect(await changeLog(previous, { snapshotHash: 'new', exportText: after })).toMatchObject(everythingAdded);
  });

  it('an unchanged snapshot has an empty log', async () => {
    const log = await changeLog({ snapshotHash: 'old', exportFile: file }, { snapshotHash: 'old', exportText: before });
    expect(log).toMatchObject({ added: [], changed: [], removed: [], records: [] });
  });
});

describe('the id of an export line', () => {
  it('is read from the start of the line, or from the whole record when it is not first or holds escapes', () => {
    expect(idOf('{"id":"skill:o/r#a","installs":3}')).toBe('skill:o/r#a');
    expect(idOf('{"installs":3,"id":"skill:o/r#b"}')).toBe('skill:o/r#b');
    expect(idOf(JSON.stringify({ id: 'skill:o/r#"q"', installs: 1 }))).toBe('skill:o/r#"q"');
    expect(idOf(JSON.stringify({ id: 'skill:o/r#back\\slash' }))).toBe('skill:o/r#back\\slash');
  });
});
