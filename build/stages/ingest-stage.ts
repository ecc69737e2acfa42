// Ingest: a snapshot export (JSON Lines, or a JSON array / YAML list of the same records) → the SQLite store, in
// three steps: validate (ingest/validate.ts: record by record), plan (ingest/plan.ts: hashes, what is added, changed
// and removed, the install histories) and write (ingest/write.ts: the one writer). A store written by the same code
// is updated in place in one transaction; any other is replaced by a database written beside it and renamed over it.
// Either way a failed ingest leaves the previous store as it was. What the store holds depends only on the input
// (and the previous store's history); when the records, their stored files and the history end equal what the store
// already holds, nothing is written at all (`snapshotUnchanged`).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { openCatalogDb } from '../sqlite-store.ts';
import { readExport } from '../export-reader.ts';
import { validateRecords, type Reject } from './ingest/validate.ts';
import { holdsSnapshot, inIdOrder, planIngest, snapshotDigests, type IngestChanges, type PreviousStore } from './ingest/plan.ts';
import { writeIngest, type WriteMode } from './ingest/write.ts';

export type { Reject } from './ingest/validate.ts';
export type { IngestChanges } from './ingest/plan.ts';

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
  /** How the store was written: updated in place, written anew, or not at all (snapshotUnchanged). */
  written: WriteMode | 'not at all';
  /** Ids per kind of change, when asked for with `listChanges`. */
  changes?: IngestChanges;
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
  /**
   * A fingerprint of the code running the ingest (the build's): recorded in the database, and when the database
   * being replaced records the same, its records' schema checks and install-history merges are not done again for
   * records byte-equal to what it holds. Undefined: everything is checked and merged anew.
   */
  codeFingerprint?: string | undefined;
}

export class IngestError extends Error {
  readonly rejects: Reject[];
  constructor(message: string, rejects: Reject[]) {
    super(message);
    this.name = 'IngestError';
    this.rejects = rejects;
  }
}

/** A field of the build-summary.json next to the export, when there is one and it matches `pattern`. */
function summaryField(exportPath: string, field: string, pattern: RegExp): string | undefined {
  const summary = join(dirname(exportPath), 'build-summary.json');
  if (!existsSync(summary)) return undefined;
  try {
    const value = JSON.parse(readFileSync(summary, 'utf8'))[field];
    return typeof value === 'string' && pattern.test(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The export's own history end: build-summary.json's historyEnd next to it, when there is one. */
const defaultHistoryEnd = (exportPath: string) => summaryField(exportPath, 'historyEnd', /^\d{4}-\d{2}-\d{2}$/);
/** When `catalog collect` gathered the export: the catalog's last update, even when no listing changed. */
const collectedAt = (exportPath: string) => summaryField(exportPath, 'collectedAt', /^\d{4}-\d{2}-\d{2}T[\d:.]+Z$/);

/** The ids the ingest that wrote this database added, changed and removed (empty lists for an older store). */
export function readIngestChanges(database: string): IngestChanges {
  const db = openCatalogDb(database);
  try {
    const changes: IngestChanges = { added: [], changed: [], removed: [] };
    const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'ingest_change'").get();
    if (!exists) return changes;
    for (const row of db.prepare('SELECT kind, listing_id AS id FROM ingest_change ORDER BY kind, listing_id').iterate() as Iterable<{
      kind: keyof IngestChanges;
      id: string;
    }>) {
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
  const db = openCatalogDb(database);
  try {
    const rows = db.prepare('SELECT key, value FROM meta').all() as Array<{ key: string; value: string }>;
    return Object.fromEntries(rows.map((r) => [r.key, r.value]));
  } catch {
    return undefined;
  } finally {
    db.close();
  }
}

/**
 * The database an ingest replaces, as the plan reads it; undefined when there is none. `stored`: its meta; when it was
 * written by code of `codeFingerprint`, its records are read up front (validation skips those byte-equal to them).
 */
function openPreviousStore(
  database: string,
  stored: Record<string, string> | undefined,
  codeFingerprint: string | undefined,
): (PreviousStore & { close(): void; validatedBefore?: (id: string) => string | undefined }) | undefined {
  if (!existsSync(database)) return undefined;
  const db = openCatalogDb(database);
  const history = db.prepare('SELECT first_day AS firstDay, daily FROM install_history WHERE listing_id = ?');
  const storedHistory = (id: string) => history.get(id) as { firstDay: string; daily: string } | undefined;
  const records = function* (): Iterable<[string, string]> {
    for (const row of db.prepare('SELECT id, record FROM listing').iterate() as Iterable<{ id: string; record: string }>) yield [row.id, row.record];
  };
  const sameCode = codeFingerprint !== undefined && stored?.ingestCode === codeFingerprint;
  const before = sameCode ? new Map(records()) : undefined;
  return {
    records: () => before ?? records(),
    ...(before && stored ? { sameCode: { historyEnd: stored.historyEnd ?? '', storedHistory }, validatedBefore: (id: string) => before.get(id) } : {}),
    history(id) {
      const row = storedHistory(id);
      return row && { firstDay: row.firstDay, daily: JSON.parse(row.daily) as number[] };
    },
    histories() {
      return db.prepare('SELECT listing_id AS id, first_day AS firstDay, daily FROM install_history ORDER BY listing_id').iterate() as Iterable<{
        id: string;
        firstDay: string;
        daily: string;
      }>;
    },
    close() {
      if (db.open) db.close();
    },
  };
}

export async function ingest(options: IngestOptions): Promise<IngestReport> {
  const exportPath = resolve(options.exportPath);
  const database = resolve(options.database);
  const filesDir = options.filesDir ?? join(dirname(exportPath), 'files');
  const historyEnd = options.historyEnd ?? defaultHistoryEnd(exportPath);
  const storedFile = (slug: string, path: string) => join(filesDir, slug, path);
  const stored = readStoredMeta(database);
  const previous = openPreviousStore(database, stored, options.codeFingerprint);
  try {
    return await ingestOver(previous, stored);
  } finally {
    previous?.close();
  }

  async function ingestOver(previous: ReturnType<typeof openPreviousStore>, stored: Record<string, string> | undefined): Promise<IngestReport> {
    const { accepted, rejects, files } = await validateRecords(readExport(exportPath), {
      file: exportPath,
      historyEnd,
      readStoredFile: (slug, path) => (existsSync(storedFile(slug, path)) ? readFileSync(storedFile(slug, path)) : undefined),
      ...(previous?.validatedBefore ? { validatedBefore: previous.validatedBefore } : {}),
    });
    if (rejects.length && !options.skipInvalid) {
      throw new IngestError(`${rejects.length} invalid record(s) in ${exportPath}; nothing was written`, rejects);
    }
    if (options.rejectsPath) {
      writeFileSync(options.rejectsPath, rejects.map((r) => JSON.stringify(r)).join('\n') + (rejects.length ? '\n' : ''));
    }
    if (accepted.length === 0) throw new IngestError(`no valid records in ${exportPath}; nothing was written`, rejects);

    const listings = inIdOrder(accepted);
    const digests = snapshotDigests(listings);
    const collected = collectedAt(exportPath);
    if (holdsSnapshot(stored, digests, historyEnd, rejects.length) && (collected === undefined || stored.lastUpdated === collected)) {
      return {
        database,
        listings: listings.length,
        files,
        historyRows: Number(stored.historyRows ?? 0),
        rejected: rejects,
        added: 0,
        changed: 0,
        removed: 0,
        unchanged: listings.length,
        snapshotHash: digests.snapshotHash,
        lastUpdated: stored.lastUpdated ?? '',
        snapshotUnchanged: true,
        written: 'not at all',
        ...(options.listChanges ? { changes: { added: [], changed: [], removed: [] } } : {}),
      };
    }

    const plan = planIngest({
      listings,
      digests,
      historyEnd,
      rejected: rejects.length,
      previous,
      lastUpdated: collected,
      codeFingerprint: options.codeFingerprint,
    });
    const { historyRows, mode } = writeIngest(database, plan, {
      readStoredText: (slug, path) => readFileSync(storedFile(slug, path), 'utf8'),
      releasePrevious: () => previous?.close(),
    });
    return {
      database,
      listings: listings.length,
      files: plan.files,
      historyRows,
      rejected: rejects,
      added: plan.changes.added.length,
      changed: plan.changes.changed.length,
      removed: plan.changes.removed.length,
      unchanged: plan.unchanged,
      snapshotHash: digests.snapshotHash,
      lastUpdated: plan.lastUpdated,
      snapshotUnchanged: false,
      written: mode,
      ...(options.listChanges ? { changes: plan.changes } : {}),
    };
  }
}
