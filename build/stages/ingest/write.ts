// Ingest, step 3: the one writer. A store written by the same code (the plan has rows it holds as stored) is updated in
// place, in one SQLite transaction: only the rows that change are written, and a failed or killed ingest leaves the
// store as it was (the rollback journal; openCatalogDb rolls a killed one back). Any other store, or none, is
// replaced: the plan is written into a fresh database beside it, renamed over it only when everything is written.
// docs/decisions/018-ingest-in-place.md.
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { readMeta, SCHEMA } from '../../sqlite-store.ts';
import { mediaTypeOf } from './stored-file-types.ts';
import { keepsCarriedHistory, listingHistory, metaRows, seriesLength, type IngestPlan } from './plan.ts';

const CHANGES_SCHEMA = 'CREATE TABLE ingest_change (kind TEXT NOT NULL, listing_id TEXT NOT NULL, PRIMARY KEY (kind, listing_id)) WITHOUT ROWID;';

export interface WriteOptions {
  /** The text of files/<slug>/<path> (validation checked that it exists). */
  readStoredText(slug: string, path: string): string;
  /**
   * Called once the plan no longer reads the database being replaced through its own connection: before a fresh
   * database is renamed over it, or before it is updated in place. The plan's previous store closes here.
   */
  releasePrevious?(): void;
}

/** How the store was written: updated in place, or written anew beside the one it replaced (or as the first). */
export type WriteMode = 'in place' | 'anew';

/**
 * Writes `plan` as the database at `database`; returns the install-history days the store holds for listed listings,
 * and how it was written.
 */
export function writeIngest(database: string, plan: IngestPlan, options: WriteOptions): { historyRows: number; mode: WriteMode } {
  if (plan.asStored.size > 0 && existsSync(database)) return { historyRows: updateInPlace(database, plan, options), mode: 'in place' };
  return { historyRows: writeAnew(database, plan, options), mode: 'anew' };
}

/**
 * Applies `plan` to the store it was planned against, written by the same code (`plan.asStored` is not empty): the
 * rows of removed listings go, those of added and changed listings are written, the rows held as stored are not
 * touched. The same rows as writeAnew's, not the same bytes (test/build/ingest.test.ts compares the two).
 */
function updateInPlace(database: string, plan: IngestPlan, options: WriteOptions): number {
  // One connection reads and writes from here on: a second one reading while this one spills its changes would
  // find the store locked.
  options.releasePrevious?.();
  const db = new Database(database, { fileMustExist: true });
  try {
    const stored = readMeta(db);
    db.exec(CHANGES_SCHEMA.replace('CREATE TABLE', 'CREATE TABLE IF NOT EXISTS'));
    const deleteListing = db.prepare('DELETE FROM listing WHERE id = ?');
    const putListing = db.prepare('INSERT OR REPLACE INTO listing (id, slug, type, installs, stars, record) VALUES (?, ?, ?, ?, ?, ?)');
    const readHistory = db.prepare('SELECT first_day AS firstDay, daily FROM install_history WHERE listing_id = ?');
    const putHistory = db.prepare('INSERT OR REPLACE INTO install_history (listing_id, first_day, daily) VALUES (?, ?, ?)');
    const deleteHistory = db.prepare('DELETE FROM install_history WHERE listing_id = ?');
    const insertFile = db.prepare('INSERT INTO listing_file (listing_id, ord, path, size, media_type, content) VALUES (?, ?, ?, ?, ?, ?)');
    const insertMeta = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)');
    const insertChange = db.prepare('INSERT INTO ingest_change (kind, listing_id) VALUES (?, ?)');
    // The listed listings' days, as the store's meta counts them: the stored count, less the days of the rows replaced
    // or no longer listed, plus the days written.
    let historyRows = Number(stored.historyRows ?? 0);
    const storedDays = (id: string) => {
      const daily = readHistory.get(id) as { daily: string } | undefined;
      return daily ? seriesLength(daily.daily) : 0;
    };
    const writeHistory = (record: IngestPlan['listings'][number]['record'], listedBefore: boolean) => {
      const before = readHistory.get(record.id) as { firstDay: string; daily: string } | undefined;
      if (before && listedBefore) historyRows -= seriesLength(before.daily);
      const merged = listingHistory(record, plan.historyEnd, before && { firstDay: before.firstDay, daily: JSON.parse(before.daily) as number[] });
      putHistory.run(record.id, merged.firstDay, JSON.stringify(merged.daily));
      historyRows += merged.daily.length;
    };
    db.transaction(() => {
      const changed = new Set(plan.changes.changed);
      // A removed listing's history stays, carried, for as long as the window keeps it (below).
      for (const id of plan.changes.removed) {
        deleteListing.run(id);
        historyRows -= storedDays(id);
      }
      for (const { record, json } of plan.listings) {
        if (plan.asStored.has(record.id)) continue;
        putListing.run(record.id, record.slug, record.type, record.installs, record.stars, json);
        writeHistory(record, changed.has(record.id));
      }
      // A listing held as stored whose history row is missing has its history merged from the export, as anew; the
      // stored count, which did not see the row go, is not trusted then.
      const missing = db
        .prepare('SELECT l.id FROM listing l WHERE NOT EXISTS (SELECT 1 FROM install_history h WHERE h.listing_id = l.id)')
        .pluck()
        .all() as string[];
      if (missing.length > 0) {
        const byId = new Map(plan.listings.map(({ record }) => [record.id, record]));
        for (const id of missing) writeHistory(byId.get(id)!, false);
        historyRows =
          (db.prepare('SELECT sum(json_array_length(h.daily)) FROM listing l JOIN install_history h ON h.listing_id = l.id').pluck().get() as number | null) ??
          0;
      }
      // The stored files: the snapshot's files digest covers every listing's paths and bytes; when it is the stored
      // one, so are the rows (the removed listings' aside).
      if (stored.filesHash === plan.digests.filesHash) {
        db.prepare('DELETE FROM listing_file WHERE NOT EXISTS (SELECT 1 FROM listing l WHERE l.id = listing_file.listing_id)').run();
      } else {
        db.prepare('DELETE FROM listing_file').run();
        for (const { record } of plan.listings) {
          (record.files ?? []).forEach((path, ord) => {
            const content = options.readStoredText(record.slug, path);
            insertFile.run(record.id, ord, path, Buffer.byteLength(content), mediaTypeOf(path), content);
          });
        }
      }
      // Histories of listings no longer listed: kept until their last day leaves the window that ends on the newest.
      const carried = db
        .prepare(
          'SELECT h.listing_id AS id, h.first_day AS firstDay, h.daily FROM install_history h WHERE NOT EXISTS (SELECT 1 FROM listing l WHERE l.id = h.listing_id)',
        )
        .all() as Array<{ id: string; firstDay: string; daily: string }>;
      for (const row of carried) if (!keepsCarriedHistory({ firstDay: row.firstDay, days: seriesLength(row.daily) }, plan.newestDay)) deleteHistory.run(row.id);
      db.prepare('DELETE FROM meta').run();
      for (const [key, value] of metaRows(plan, historyRows)) insertMeta.run(key, value);
      db.prepare('DELETE FROM ingest_change').run();
      for (const kind of ['added', 'changed', 'removed'] as const) for (const id of plan.changes[kind]) insertChange.run(kind, id);
    })();
    return historyRows;
  } finally {
    db.close();
  }
}

/** Writes `plan` into a fresh database and renames it over `database`; returns the days written for listed listings. */
function writeAnew(database: string, plan: IngestPlan, options: WriteOptions): number {
  mkdirSync(dirname(database), { recursive: true });
  const temp = `${database}.tmp-${process.pid}`;
  rmSync(temp, { force: true });
  const db = new Database(temp);
  try {
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.exec(SCHEMA);
    const insertListing = db.prepare('INSERT INTO listing (id, slug, type, installs, stars, record) VALUES (?, ?, ?, ?, ?, ?)');
    const insertFile = db.prepare('INSERT INTO listing_file (listing_id, ord, path, size, media_type, content) VALUES (?, ?, ?, ?, ?, ?)');
    const insertHistory = db.prepare('INSERT INTO install_history (listing_id, first_day, daily) VALUES (?, ?, ?)');
    const insertMeta = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)');
    let historyRows = 0;
    db.transaction(() => {
      // In id order, and the histories too (IngestPlan.history): the same plan gives the same bytes.
      for (const { record, json } of plan.listings) {
        insertListing.run(record.id, record.slug, record.type, record.installs, record.stars, json);
        (record.files ?? []).forEach((path, ord) => {
          const content = options.readStoredText(record.slug, path);
          insertFile.run(record.id, ord, path, Buffer.byteLength(content), mediaTypeOf(path), content);
        });
      }
      for (const row of plan.history()) {
        insertHistory.run(row.id, row.firstDay, row.daily);
        if (row.listed) historyRows += row.days;
      }
      for (const [key, value] of metaRows(plan, historyRows)) insertMeta.run(key, value);
      // What this ingest changed stays with the store, so a caller that ran it through the build pipeline
      // (catalog rebuild) can still list the ids.
      db.exec(CHANGES_SCHEMA);
      const insertChange = db.prepare('INSERT INTO ingest_change (kind, listing_id) VALUES (?, ?)');
      for (const kind of ['added', 'changed', 'removed'] as const) for (const id of plan.changes[kind]) insertChange.run(kind, id);
    })();
    db.close();
    options.releasePrevious?.();
    renameSync(temp, database);
    return historyRows;
  } catch (error) {
    if (db.open) db.close();
    rmSync(temp, { force: true });
    throw error;
  }
}
