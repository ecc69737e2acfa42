// Guarantees each step of the ingest on its own: validate refuses each kind of bad record with its reason and
// accepts the rest with their file hashes; plan derives the snapshot hashes, the changes and the install
// histories from records and the previous store alone; write applies a plan and swaps the database in only when
// it is complete.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { HISTORY_DAYS_KEPT, addDays, SCHEMA_VERSION } from '../../build/sqlite-store.ts';
import { validateRecord, validateRecords, type AcceptedRecord, type Seen, type ValidateOptions } from '../../build/stages/ingest/validate.ts';
import {
  holdsSnapshot,
  inIdOrder,
  keepsCarriedHistory,
  listingHistory,
  metaRows,
  planIngest,
  snapshotDigests,
  type PreviousStore,
} from '../../build/stages/ingest/plan.ts';
import { writeIngest } from '../../build/stages/ingest/write.ts';
import type { ListingRecord } from '../../src/domain/schemas.ts';
import { sampleRecords, tempDir } from '../support/fixtures.ts';

const FILE = '/exports/listings.jsonl';
const records = sampleRecords(2);
const withFiles = records.find((r) => r.files?.length)!;
const withoutFiles = records.filter((r) => !r.files?.length);
const bytesOf = (slug: string, path: string) => Buffer.from(`${slug}/${path} contents`);
const options: ValidateOptions = { file: FILE, historyEnd: '2026-04-16', readStoredFile: bytesOf };
const seenNone = (): Seen => ({ ids: new Set(), slugs: new Set() });
const sha = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/** An accepted record as validation makes it (file hashes of bytesOf). */
const accepted = (record: ListingRecord): AcceptedRecord => ({
  record,
  json: JSON.stringify(record),
  fileHashes: (record.files ?? []).map((path) => sha(bytesOf(record.slug, path))),
});

/** A previous store over plain maps. */
function memoryStore(
  rows: Array<{ record: ListingRecord | { id: string; json: string }; firstDay: string; daily: number[] }>,
  carried: Array<{ id: string; firstDay: string; daily: number[] }> = [],
): PreviousStore {
  const json = (r: (typeof rows)[number]['record']) => ('json' in r ? r.json : JSON.stringify(r));
  const histories = [...rows.map((r) => ({ id: r.record.id, firstDay: r.firstDay, daily: r.daily })), ...carried].sort((a, b) => (a.id < b.id ? -1 : 1));
  return {
    records: () => rows.map((r) => [r.record.id, json(r.record)] as [string, string]),
    history: (id) => histories.find((h) => h.id === id),
    histories: () => histories.map((h) => ({ id: h.id, firstDay: h.firstDay, daily: JSON.stringify(h.daily) })),
  };
}

describe('validate', () => {
  const good = withoutFiles[0]!;
  it.each([
    ['a line that is not JSON', { line: 7, parseError: 'not JSON: Unexpected end' }, seenNone(), options, { line: 7, reason: 'not JSON: Unexpected end' }],
    [
      'a record the schema refuses',
      { line: 2, value: { ...good, installs: -1 } },
      seenNone(),
      options,
      { line: 2, id: good.id, reason: expect.stringMatching(/^installs: /) },
    ],
    [
      'an id already accepted',
      { line: 3, value: good },
      { ids: new Set([good.id]), slugs: new Set<string>() },
      options,
      { line: 3, id: good.id, reason: `duplicate id ${good.id}` },
    ],
    [
      'a slug already accepted',
      { line: 4, value: good },
      { ids: new Set<string>(), slugs: new Set([good.slug]) },
      options,
      { line: 4, id: good.id, reason: `duplicate slug ${good.slug}` },
    ],
    [
      'a stored file that is missing',
      { line: 5, value: withFiles },
      seenNone(),
      { ...options, readStoredFile: () => undefined },
      { line: 5, id: withFiles.id, reason: `stored file ${withFiles.slug}/${withFiles.files![0]} is missing` },
    ],
    [
      'a stored file path that leaves its folder',
      { line: 6, value: { ...withFiles, files: ['SKILL.md', '../../etc/passwd'] } },
      seenNone(),
      options,
      { line: 6, id: withFiles.id, reason: `stored file ${withFiles.slug}/../../etc/passwd is missing` },
    ],
    [
      'no installsAsOf and no history end',
      { line: 8, value: { ...good, metrics: { ...good.metrics, installsAsOf: undefined } } },
      seenNone(),
      { ...options, historyEnd: undefined },
      { line: 8, id: good.id, reason: 'metrics.installsAsOf missing and no history end date given (--history-end)' },
    ],
  ] as const)('refuses %s, naming file, line and reason', (_, entry, seen, opts, reject) => {
    const before = { ids: [...seen.ids], slugs: [...seen.slugs] };
    expect(validateRecord(entry, seen, opts)).toEqual({ reject: { file: FILE, ...reject } });
    expect({ ids: [...seen.ids], slugs: [...seen.slugs] }).toEqual(before);
  });

  it('accepts a record with the SHA-256 of each stored file and takes its id and slug', () => {
    const seen = seenNone();
    expect(validateRecord({ line: 1, value: withFiles }, seen, options)).toEqual({ accepted: accepted(withFiles) });
    expect(seen).toEqual({ ids: new Set([withFiles.id]), slugs: new Set([withFiles.slug]) });
  });

  it('skips the schema check of a record byte-equal to the one a store of this code holds, and only of that one', () => {
    // Stored while the schema allowed it (say): byte-equal, it is taken as stored; changed, it is checked again.
    const stored = { ...withoutFiles[0]!, installs: -1 };
    const validatedBefore = (id: string) => (id === stored.id ? JSON.stringify(stored) : undefined);
    const same = validateRecord({ line: 1, value: stored }, seenNone(), { ...options, validatedBefore });
    expect(same).toEqual({ accepted: { record: stored, json: JSON.stringify(stored), fileHashes: [] } });
    const changed = validateRecord({ line: 1, value: { ...stored, stars: stored.stars + 1 } }, seenNone(), { ...options, validatedBefore });
    expect(changed).toMatchObject({ reject: { line: 1, id: stored.id, reason: expect.stringMatching(/installs/) } });
    // The rules across records still apply to a record taken as stored.
    const seen = seenNone();
    seen.ids.add(stored.id);
    expect(validateRecord({ line: 2, value: stored }, seen, { ...options, validatedBefore })).toEqual({
      reject: { file: FILE, line: 2, id: stored.id, reason: `duplicate id ${stored.id}` },
    });
  });

  it('validates a whole export in order, counting the stored files of the accepted records', async () => {
    const entries = [
      { line: 1, value: withFiles },
      { line: 2, parseError: 'not JSON' },
      { line: 3, value: withFiles },
      ...withoutFiles.map((value, i) => ({ line: 4 + i, value })),
    ];
    const validation = await validateRecords(entries, options);
    expect(validation.accepted.map((a) => a.record.id)).toEqual([withFiles.id, ...withoutFiles.map((r) => r.id)]);
    expect(validation.rejects.map((r) => [r.line, r.reason])).toEqual([
      [2, 'not JSON'],
      [3, `duplicate id ${withFiles.id}`],
    ]);
    expect(validation.files).toBe(withFiles.files!.length);
  });
});

describe('plan', () => {
  const listings = inIdOrder(records.map(accepted));
  const digests = snapshotDigests(listings);
  const plan = (previous?: PreviousStore, historyEnd = '2026-04-16') => planIngest({ listings, digests, historyEnd, rejected: 0, previous });

  it('hashes the records in id order: the same records in another order are the same snapshot', () => {
    expect(listings.map((a) => a.record.id)).toEqual(records.map((r) => r.id).sort());
    expect(snapshotDigests(inIdOrder([...records].reverse().map(accepted)))).toEqual(digests);
    expect(digests.snapshotHash).toBe(sha(listings.map((a) => `${a.json}\n`).join('')));
    const changedFile = listings.map((a) => (a.record.id === withFiles.id ? { ...a, fileHashes: ['0'.repeat(64)] } : a));
    expect(snapshotDigests(changedFile)).toEqual({ snapshotHash: digests.snapshotHash, filesHash: expect.not.stringMatching(digests.filesHash) });
  });

  const stored = {
    schemaVersion: String(SCHEMA_VERSION),
    snapshotHash: digests.snapshotHash,
    filesHash: digests.filesHash,
    historyEnd: '2026-04-16',
    rejected: '0',
  };
  it.each([
    ['the same snapshot', stored, true],
    ['no database', undefined, false],
    ['another schema version', { ...stored, schemaVersion: '0' }, false],
    ['other records', { ...stored, snapshotHash: 'x' }, false],
    ['other stored files', { ...stored, filesHash: 'x' }, false],
    ['another history end', { ...stored, historyEnd: '' }, false],
    ['another number of rejects', { ...stored, rejected: '1' }, false],
  ])('a stored database with %s holds the snapshot: %s', (_, meta, holds) => {
    expect(holdsSnapshot(meta, digests, '2026-04-16', 0)).toBe(holds);
  });

  it('a first ingest adds every listing; lastUpdated and newestDay are the newest of any', () => {
    const first = plan();
    expect(first.changes).toEqual({ added: listings.map((a) => a.record.id), changed: [], removed: [] });
    expect(first.unchanged).toBe(0);
    expect(first.files).toBe(records.reduce((n, r) => n + (r.files?.length ?? 0), 0));
    expect(first.lastUpdated).toBe(
      records
        .map((r) => r.updatedAt)
        .sort()
        .at(-1),
    );
    expect(first.newestDay).toBe(
      records
        .map((r) => r.metrics.installsAsOf ?? '2026-04-16')
        .sort()
        .at(-1),
    );
  });

  it('against the previous store: added, changed (another stored JSON), removed in id order, unchanged counted', () => {
    const [kept, edited, ...rest] = listings;
    const previous = memoryStore([
      { record: kept!.record, firstDay: '2026-03-18', daily: [1] },
      { record: { id: edited!.record.id, json: '{"old":true}' }, firstDay: '2026-03-18', daily: [1] },
      { record: { id: 'skill:z/z#gone', json: '{}' }, firstDay: '2026-03-18', daily: [1] },
      { record: { id: 'skill:a/a#gone', json: '{}' }, firstDay: '2026-03-18', daily: [1] },
    ]);
    const next = plan(previous);
    expect(next.changes).toEqual({ added: rest.map((a) => a.record.id), changed: [edited!.record.id], removed: ['skill:a/a#gone', 'skill:z/z#gone'] });
    expect(next.unchanged).toBe(1);
  });

  it('merges each history over the previous days, then carries the histories of absent listings still in the window', () => {
    const first = listings[0]!.record;
    const end = first.metrics.installsAsOf ?? '2026-04-16';
    const statedStart = addDays(end, -(first.installsHistory.length - 1));
    const earlier = { firstDay: addDays(statedStart, -2), daily: [0, 0] };
    expect(listingHistory(first, '2026-04-16', earlier)).toEqual({ firstDay: earlier.firstDay, daily: [0, 0, ...first.installsHistory] });

    const newestDay = plan().newestDay;
    const recent = { id: 'skill:a/a#recent', firstDay: addDays(newestDay, -10), daily: [1, 2, 3] };
    const expired = { id: 'skill:a/a#expired', firstDay: addDays(newestDay, -HISTORY_DAYS_KEPT - 5), daily: [1, 2, 3] };
    expect(keepsCarriedHistory({ firstDay: recent.firstDay, days: 3 }, newestDay)).toBe(true);
    expect(keepsCarriedHistory({ firstDay: expired.firstDay, days: 3 }, newestDay)).toBe(false);

    const rows = [...plan(memoryStore([{ record: first, ...earlier }], [recent, expired])).history()];
    expect(rows.map((r) => [r.id, r.listed])).toEqual([...listings.map((a) => [a.record.id, true]), [recent.id, false]]);
    expect(rows[0]).toEqual({
      id: first.id,
      firstDay: earlier.firstDay,
      daily: JSON.stringify([0, 0, ...first.installsHistory]),
      days: first.installsHistory.length + 2,
      listed: true,
    });
    expect(rows.at(-1)).toEqual({ ...recent, daily: '[1,2,3]', days: 3, listed: false });
  });

  it('takes the stored history of a record stored byte-equal by this code against the same history end, and merges the rest', () => {
    // Histories with a gap before the stated days, and one longer than the kept window: merging again changes neither.
    const [first, second] = listings.map((a) => a.record);
    const merged = (record: ListingRecord, older: { firstDay: string; daily: number[] }) => listingHistory(record, '2026-04-16', older);
    const long = { firstDay: '2025-01-01', daily: Array.from({ length: 500 }, (_, i) => Math.min(i, 3)) };
    const stored = [
      { record: first!, ...merged(first!, { firstDay: addDays('2026-04-16', -40), daily: [0, 1] }) },
      { record: second!, ...merged(second!, long) },
    ];
    const sameCode = (store: PreviousStore, historyEnd: string): PreviousStore => ({
      ...store,
      sameCode: {
        historyEnd,
        storedHistory: (id) => {
          const row = stored.find((r) => r.record.id === id);
          return row && { firstDay: row.firstDay, daily: JSON.stringify(row.daily) };
        },
      },
    });
    const merging = [...plan(memoryStore(stored)).history()];
    const taken = [...plan(sameCode(memoryStore(stored), '2026-04-16')).history()];
    expect(taken).toEqual(merging);
    expect(taken[1]!.days).toBe(HISTORY_DAYS_KEPT);

    // What is taken as stored is the stored row itself: a changed record, or another history end, is merged anew.
    const marked = stored.map((r) => ({ ...r, daily: [...r.daily.slice(0, -1), 999_999] }));
    const markedStore = (historyEnd: string, changed?: string): PreviousStore => ({
      ...memoryStore(stored.map((r) => (r.record.id === changed ? { ...r, record: { id: r.record.id, json: '{}' } } : r))),
      sameCode: {
        historyEnd,
        storedHistory: (id) => {
          const row = marked.find((r) => r.record.id === id);
          return row && { firstDay: row.firstDay, daily: JSON.stringify(row.daily) };
        },
      },
    });
    const rows = (store: PreviousStore) => [...plan(store).history()].slice(0, 2).map((r) => r.daily.endsWith(',999999]'));
    expect(rows(markedStore('2026-04-16'))).toEqual([true, true]);
    expect(rows(markedStore('2026-04-16', first!.id))).toEqual([false, true]);
    expect(rows(markedStore('2026-04-15'))).toEqual([false, false]);
  });

  it('writes the meta the unchanged check and the build read', () => {
    const first = plan();
    expect(Object.fromEntries(metaRows(first, 42))).toEqual({
      schemaVersion: String(SCHEMA_VERSION),
      snapshotHash: digests.snapshotHash,
      filesHash: digests.filesHash,
      lastUpdated: first.lastUpdated,
      listings: String(listings.length),
      files: String(first.files),
      historyRows: '42',
      rejected: '0',
      historyEnd: '2026-04-16',
    });
    const stamped = planIngest({ listings, digests, historyEnd: '2026-04-16', rejected: 0, previous: undefined, codeFingerprint: 'code-1' });
    expect(Object.fromEntries(metaRows(stamped, 42)).ingestCode).toBe('code-1');
  });
});

describe('write', () => {
  const listings = inIdOrder(records.map(accepted));
  const plan = planIngest({ listings, digests: snapshotDigests(listings), historyEnd: '2026-04-16', rejected: 0, previous: undefined });
  const readStoredText = (slug: string, path: string) => bytesOf(slug, path).toString();

  it('writes listings, stored files, histories, meta and the changes, then swaps the database in', () => {
    const database = join(tempDir(), 'store', 'catalog.db');
    let swapped: boolean | undefined;
    const { historyRows, mode } = writeIngest(database, plan, { readStoredText, releasePrevious: () => (swapped = existsSync(database)) });
    expect(swapped).toBe(false);
    expect(mode).toBe('anew');
    expect(historyRows).toBe(records.reduce((n, r) => n + r.installsHistory.length, 0));
    const db = new Database(database, { readonly: true });
    expect(db.prepare('SELECT id, record FROM listing ORDER BY id').all()).toEqual(listings.map((a) => ({ id: a.record.id, record: a.json })));
    const files = listings.flatMap(({ record }) =>
      (record.files ?? []).map((path, ord) => ({ listing_id: record.id, ord, path, content: readStoredText(record.slug, path) })),
    );
    expect(files.length).toBeGreaterThan(1);
    expect(db.prepare('SELECT listing_id, ord, path, content FROM listing_file ORDER BY listing_id, ord').all()).toEqual(files);
    expect(db.prepare('SELECT count(*) AS n FROM install_history').get()).toEqual({ n: listings.length });
    expect(Object.fromEntries((db.prepare('SELECT key, value FROM meta').all() as Array<{ key: string; value: string }>).map((r) => [r.key, r.value]))).toEqual(
      Object.fromEntries(metaRows(plan, historyRows)),
    );
    expect(
      (db.prepare("SELECT listing_id AS id FROM ingest_change WHERE kind = 'added' ORDER BY listing_id").all() as Array<{ id: string }>).map((r) => r.id),
    ).toEqual(plan.changes.added);
    db.close();
    expect(existsSync(`${database}.tmp-${process.pid}`)).toBe(false);
  });

  it('a failure while writing leaves the previous database as it was and no temporary file', () => {
    const database = join(tempDir(), 'catalog.db');
    writeFileSync(database, 'the previous database');
    expect(() =>
      writeIngest(database, plan, {
        readStoredText: () => {
          throw new Error('disk gone');
        },
      }),
    ).toThrow('disk gone');
    expect(readFileSync(database, 'utf8')).toBe('the previous database');
    expect(existsSync(`${database}.tmp-${process.pid}`)).toBe(false);
  });

  it('updates a store of the same code in place, and a failure there leaves every row as it was', () => {
    const database = join(tempDir(), 'catalog.db');
    const first = planIngest({
      listings,
      digests: snapshotDigests(listings),
      historyEnd: '2026-04-16',
      rejected: 0,
      previous: undefined,
      codeFingerprint: 'c',
    });
    writeIngest(database, first, { readStoredText });
    const rows = () => {
      const db = new Database(database, { readonly: true });
      try {
        return ['listing', 'listing_file', 'install_history', 'meta', 'ingest_change'].map((table) => db.prepare(`SELECT * FROM ${table} ORDER BY 1, 2`).all());
      } finally {
        db.close();
      }
    };
    const before = rows();
    const changed = inIdOrder(
      records.map((record, i) => accepted(i === 0 ? { ...record, description: 'Changed.', files: [...(record.files ?? []), 'extra.md'] } : record)),
    );
    const store = new Database(database, { readonly: true });
    const stored = new Map(store.prepare('SELECT id, record FROM listing').raw().all() as Array<[string, string]>);
    const next = planIngest({
      listings: changed,
      digests: snapshotDigests(changed),
      historyEnd: '2026-04-16',
      rejected: 0,
      codeFingerprint: 'c',
      previous: {
        records: () => stored,
        history: () => undefined,
        histories: () => [],
        sameCode: {
          historyEnd: '2026-04-16',
          storedHistory: (id) => store.prepare('SELECT first_day AS firstDay, daily FROM install_history WHERE listing_id = ?').get(id) as never,
        },
      },
    });
    expect(next.asStored.size).toBe(records.length - 1);
    let released = false;
    expect(() =>
      writeIngest(database, next, {
        releasePrevious: () => {
          store.close();
          released = true;
        },
        readStoredText: (slug, path) => {
          if (path === 'extra.md') throw new Error('disk gone');
          return readStoredText(slug, path);
        },
      }),
    ).toThrow('disk gone');
    expect(released).toBe(true);
    expect(rows()).toEqual(before);
    const { mode } = writeIngest(database, next, { readStoredText });
    expect(mode).toBe('in place');
    const [listingRows, fileRows] = rows() as [Array<{ id: string; record: string }>, Array<{ path: string }>];
    expect(listingRows.find((row) => row.id === records[0]!.id)?.record).toContain('Changed.');
    expect(fileRows.map((row) => row.path)).toContain('extra.md');
    expect(existsSync(`${database}-journal`)).toBe(false);
  });
});
