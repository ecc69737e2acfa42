// Ingest: a snapshot export (JSON Lines, or a JSON array / YAML list of the same records) → a fresh SQLite
// database, validated record by record. The new database is written beside the old one and renamed over it
// only when every step succeeded, so a failed ingest leaves the previous database untouched. Output depends
// only on the input (and the previous database's history), so re-running on the same input yields a
// byte-identical file; when the records, their stored files and the history end equal what the database
// already holds, nothing is written at all (`snapshotUnchanged`).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { ListingRecordSchema, type ListingRecord } from '../src/domain/schemas.ts';
import { compareIds } from '../src/domain/ranking.ts';
import { readExport } from './export-reader.ts';
import { addDays, dayDiff, HISTORY_DAYS_KEPT, mergeHistory, SCHEMA, SCHEMA_VERSION } from './catalog-db.ts';
import { mediaTypeOf } from './media-types.ts';

export interface Reject {
  file: string;
  line: number;
  id?: string;
  reason: string;
}

export interface IngestReport {
  database: string;
  listings: number;
  files: number;
  historyRows: number;
  rejected: Reject[];
  added: number;
  changed: number;
  removed: number;
  unchanged: number;
  snapshotHash: string;
  lastUpdated: string;
  /** true when the export equals what the database holds and nothing was rewritten. */
  snapshotUnchanged: boolean;
  /** Ids per kind of change, when asked for with `listChanges`. */
  changes?: IngestChanges;
}

export interface IngestChanges {
  added: string[];
  changed: string[];
  removed: string[];
}

export interface IngestOptions {
  exportPath: string;
  database: string;
  /** Directory holding files/<slug>/<path>; defaults to the export's directory. */
  filesDir?: string;
  skipInvalid?: boolean;
  rejectsPath?: string;
  /** Day (YYYY-MM-DD) of the last history value when a record has no metrics.installsAsOf. */
  historyEnd?: string;
  /** Report the ids added, changed and removed (IngestReport.changes). */
  listChanges?: boolean;
}

export class IngestError extends Error {
  readonly rejects: Reject[];
  constructor(message: string, rejects: Reject[]) {
    super(message);
    this.name = 'IngestError';
    this.rejects = rejects;
  }
}

function describeIssues(error: { issues: Array<{ path: PropertyKey[]; message: string }> }): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.length ? issue.path.join('.') : 'record'}: ${issue.message}`)
    .join('; ');
}

/** The export's own history end: build-summary.json's historyEnd next to it, when there is one. */
function defaultHistoryEnd(exportPath: string): string | undefined {
  const summary = join(dirname(exportPath), 'build-summary.json');
  if (!existsSync(summary)) return undefined;
  try {
    const value = JSON.parse(readFileSync(summary, 'utf8')).historyEnd;
    return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

interface Accepted {
  record: ListingRecord;
  json: string;
  /** SHA-256 of each stored file, in the record's file order. */
  fileHashes: string[];
}

const CHANGES_SCHEMA = 'CREATE TABLE ingest_change (kind TEXT NOT NULL, listing_id TEXT NOT NULL, PRIMARY KEY (kind, listing_id)) WITHOUT ROWID;';

/** The ids the ingest that wrote this database added, changed and removed (empty lists for an older store). */
export function readIngestChanges(database: string): IngestChanges {
  const db = new Database(database, { readonly: true, fileMustExist: true });
  try {
    const changes: IngestChanges = { added: [], changed: [], removed: [] };
    const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'ingest_change'").get();
    if (!exists) return changes;
    for (const row of db.prepare('SELECT kind, listing_id AS id FROM ingest_change ORDER BY kind, listing_id').iterate() as Iterable<{ kind: keyof IngestChanges; id: string }>) {
      changes[row.kind]?.push(row.id);
    }
    return changes;
  } finally {
    db.close();
  }
}

/** The meta of the database an ingest would replace; undefined when there is none (or it is unreadable). */
function readStoredMeta(database: string): Record<string, string> | undefined {
  if (!existsSync(database)) return undefined;
  const db = new Database(database, { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare('SELECT key, value FROM meta').all() as Array<{ key: string; value: string }>;
    return Object.fromEntries(rows.map((r) => [r.key, r.value]));
  } catch {
    return undefined;
  } finally {
    db.close();
  }
}

export async function ingest(options: IngestOptions): Promise<IngestReport> {
  const exportPath = resolve(options.exportPath);
  const database = resolve(options.database);
  const filesDir = options.filesDir ?? join(dirname(exportPath), 'files');
  const historyEnd = options.historyEnd ?? defaultHistoryEnd(exportPath);

  const rejects: Reject[] = [];
  const accepted: Accepted[] = [];
  const seenIds = new Set<string>();
  const seenSlugs = new Set<string>();
  let fileCount = 0;
  for await (const { line, value, parseError } of readExport(exportPath)) {
    if (parseError) {
      rejects.push({ file: exportPath, line, reason: parseError });
      continue;
    }
    const parsed = ListingRecordSchema.safeParse(value);
    const id = typeof (value as { id?: unknown })?.id === 'string' ? (value as { id: string }).id : undefined;
    if (!parsed.success) {
      rejects.push({ file: exportPath, line, id, reason: describeIssues(parsed.error) });
      continue;
    }
    const record = parsed.data;
    if (seenIds.has(record.id)) {
      rejects.push({ file: exportPath, line, id, reason: `duplicate id ${record.id}` });
      continue;
    }
    if (seenSlugs.has(record.slug)) {
      rejects.push({ file: exportPath, line, id, reason: `duplicate slug ${record.slug}` });
      continue;
    }
    const fileHashes: string[] = [];
    for (const path of record.files ?? []) {
      const full = join(filesDir, record.slug, path);
      if (path.includes('..') || !existsSync(full)) {
        rejects.push({ file: exportPath, line, id, reason: `stored file ${record.slug}/${path} is missing` });
        break;
      }
      fileHashes.push(createHash('sha256').update(readFileSync(full)).digest('hex'));
    }
    if (rejects.length && rejects[rejects.length - 1]!.line === line) continue;
    if (!record.metrics.installsAsOf && !historyEnd) {
      rejects.push({ file: exportPath, line, id, reason: 'metrics.installsAsOf missing and no history end date given (--history-end)' });
      continue;
    }
    seenIds.add(record.id);
    seenSlugs.add(record.slug);
    accepted.push({ record, json: JSON.stringify(value), fileHashes });
    fileCount += record.files?.length ?? 0;
  }

  if (rejects.length && !options.skipInvalid) {
    throw new IngestError(`${rejects.length} invalid record(s) in ${exportPath}; nothing was written`, rejects);
  }
  if (options.rejectsPath) {
    writeFileSync(options.rejectsPath, rejects.map((r) => JSON.stringify(r)).join('\n') + (rejects.length ? '\n' : ''));
  }
  if (accepted.length === 0) throw new IngestError(`no valid records in ${exportPath}; nothing was written`, rejects);

  // Deterministic order: the database's bytes depend only on the content, and so do the hashes: the same
  // records in another order (or another format) are the same snapshot.
  accepted.sort((a, b) => compareIds(a.record.id, b.record.id));
  const hash = createHash('sha256');
  const filesHash = createHash('sha256');
  for (const { record, json, fileHashes } of accepted) {
    hash.update(json).update('\n');
    (record.files ?? []).forEach((path, i) => filesHash.update(`${record.id}\t${path}\t${fileHashes[i]}\n`));
  }
  const snapshotHash = hash.digest('hex');
  const filesDigest = filesHash.digest('hex');
  const stored = readStoredMeta(database);
  if (
    stored &&
    stored.schemaVersion === String(SCHEMA_VERSION) &&
    stored.snapshotHash === snapshotHash &&
    stored.filesHash === filesDigest &&
    stored.historyEnd === (historyEnd ?? '') &&
    stored.rejected === String(rejects.length)
  ) {
    return {
      database,
      listings: accepted.length,
      files: fileCount,
      historyRows: Number(stored.historyRows ?? 0),
      rejected: rejects,
      added: 0,
      changed: 0,
      removed: 0,
      unchanged: accepted.length,
      snapshotHash,
      lastUpdated: stored.lastUpdated ?? '',
      snapshotUnchanged: true,
      ...(options.listChanges ? { changes: { added: [], changed: [], removed: [] } } : {}),
    };
  }

  mkdirSync(dirname(database), { recursive: true });
  const temp = `${database}.tmp-${process.pid}`;
  rmSync(temp, { force: true });
  let previous: Database.Database | undefined;
  const db = new Database(temp);
  try {
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.exec(SCHEMA);
    if (existsSync(database)) previous = new Database(database, { readonly: true, fileMustExist: true });

    const previousRecords = new Map<string, string>();
    if (previous) {
      for (const row of previous.prepare('SELECT id, record FROM listing').iterate() as Iterable<{ id: string; record: string }>)
        previousRecords.set(row.id, row.record);
    }
    const previousHistory = previous?.prepare('SELECT first_day AS firstDay, daily FROM install_history WHERE listing_id = ?');

    const insertListing = db.prepare('INSERT INTO listing (id, slug, type, installs, stars, record) VALUES (?, ?, ?, ?, ?, ?)');
    const insertFile = db.prepare('INSERT INTO listing_file (listing_id, ord, path, size, media_type, content) VALUES (?, ?, ?, ?, ?, ?)');
    const insertHistory = db.prepare('INSERT INTO install_history (listing_id, first_day, daily) VALUES (?, ?, ?)');
    const insertMeta = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)');

    let files = 0;
    let historyRows = 0;
    let lastUpdated = '';
    let newestDay = '';
    const changes: IngestChanges = { added: [], changed: [], removed: [] };
    let unchanged = 0;
    db.transaction(() => {
      for (const { record, json } of accepted) {
        const before = previousRecords.get(record.id);
        if (before === undefined) changes.added.push(record.id);
        else if (before === json) unchanged++;
        else changes.changed.push(record.id);
        insertListing.run(record.id, record.slug, record.type, record.installs, record.stars, json);
        if (record.updatedAt > lastUpdated) lastUpdated = record.updatedAt;

        (record.files ?? []).forEach((path, ord) => {
          const content = readFileSync(join(filesDir, record.slug, path), 'utf8');
          insertFile.run(record.id, ord, path, Buffer.byteLength(content), mediaTypeOf(path), content);
          files++;
        });

        // History: the days the previous database knew, overwritten by the days this export states.
        const end = record.metrics.installsAsOf ?? historyEnd!;
        if (end > newestDay) newestDay = end;
        const stated = { firstDay: addDays(end, -(record.installsHistory.length - 1)), daily: record.installsHistory };
        const row = previousHistory?.get(record.id) as { firstDay: string; daily: string } | undefined;
        const merged = mergeHistory(row && { firstDay: row.firstDay, daily: JSON.parse(row.daily) as number[] }, stated);
        insertHistory.run(record.id, merged.firstDay, JSON.stringify(merged.daily));
        historyRows += merged.daily.length;
      }
      // A listing missing from one export (a source hiccup, a repository briefly private) keeps its history
      // for when it returns, until its last day falls out of the kept window. The build reads history only
      // for listings that exist, so these rows never reach the site or the API.
      if (previous) {
        const carried = previous.prepare('SELECT listing_id AS id, first_day AS firstDay, daily FROM install_history ORDER BY listing_id');
        for (const row of carried.iterate() as Iterable<{ id: string; firstDay: string; daily: string }>) {
          if (seenIds.has(row.id)) continue;
          const lastDay = addDays(row.firstDay, (JSON.parse(row.daily) as number[]).length - 1);
          if (dayDiff(lastDay, newestDay) < HISTORY_DAYS_KEPT) insertHistory.run(row.id, row.firstDay, row.daily);
        }
      }
      insertMeta.run('schemaVersion', String(SCHEMA_VERSION));
      insertMeta.run('snapshotHash', snapshotHash);
      insertMeta.run('filesHash', filesDigest);
      insertMeta.run('lastUpdated', lastUpdated);
      insertMeta.run('listings', String(accepted.length));
      insertMeta.run('files', String(files));
      insertMeta.run('historyRows', String(historyRows));
      insertMeta.run('rejected', String(rejects.length));
      insertMeta.run('historyEnd', historyEnd ?? '');
    })();
    changes.removed = [...previousRecords.keys()].filter((id) => !seenIds.has(id)).sort();
    // What this ingest changed stays with the store, so a caller that ran it through the build pipeline
    // (catalog rebuild) can still list the ids.
    db.exec(CHANGES_SCHEMA);
    const insertChange = db.prepare('INSERT INTO ingest_change (kind, listing_id) VALUES (?, ?)');
    db.transaction(() => {
      for (const kind of ['added', 'changed', 'removed'] as const) for (const id of changes[kind]) insertChange.run(kind, id);
    })();
    db.exec('VACUUM');
    db.close();
    previous?.close();
    previous = undefined;
    renameSync(temp, database);
    return {
      database,
      listings: accepted.length,
      files,
      historyRows,
      rejected: rejects,
      added: changes.added.length,
      changed: changes.changed.length,
      removed: changes.removed.length,
      unchanged,
      snapshotHash,
      lastUpdated,
      snapshotUnchanged: false,
      ...(options.listChanges ? { changes } : {}),
    };
  } catch (error) {
    if (db.open) db.close();
    previous?.close();
    rmSync(temp, { force: true });
    throw error;
  }
}

