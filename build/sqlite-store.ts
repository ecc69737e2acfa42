// The SQLite store the ingest writes and the build reads: listings, their stored files and the daily install
// history behind sort=trending. One schema, opened read-only by readers.
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';

export type CatalogDb = Database.Database;

export const SCHEMA_VERSION = 1;

export const SCHEMA = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE listing (
  id TEXT PRIMARY KEY,
  slug TEXT NOT NULL UNIQUE,
  type TEXT NOT NULL,
  installs INTEGER NOT NULL,
  stars INTEGER NOT NULL,
  record TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE listing_file (
  listing_id TEXT NOT NULL,
  ord INTEGER NOT NULL,
  path TEXT NOT NULL,
  size INTEGER NOT NULL,
  media_type TEXT NOT NULL,
  content TEXT NOT NULL,
  PRIMARY KEY (listing_id, ord)
) WITHOUT ROWID;
-- One row per listing: cumulative installs for consecutive days starting at first_day (JSON array).
CREATE TABLE install_history (
  listing_id TEXT PRIMARY KEY,
  first_day TEXT NOT NULL,
  daily TEXT NOT NULL
) WITHOUT ROWID;
`;

export function openCatalogDb(path: string, options: { readonly?: boolean } = {}): CatalogDb {
  const readonly = options.readonly ?? true;
  if (readonly) rollBackInterruptedWrite(path);
  return new Database(path, { readonly, fileMustExist: readonly });
}

/**
 * An ingest killed while it updated the store in place (ingest/write.ts) leaves a hot rollback journal beside it: the
 * first connection that may write rolls it back, the store is as it was before that ingest, and read-only connections
 * open it again. A read-only connection alone cannot roll it back and fails (SQLITE_READONLY_ROLLBACK).
 */
export function rollBackInterruptedWrite(path: string): void {
  if (!existsSync(`${path}-journal`) || !existsSync(path)) return;
  const db = new Database(path, { fileMustExist: true });
  try {
    db.prepare('SELECT count(*) FROM sqlite_master').get();
  } finally {
    db.close();
  }
}

export function readMeta(db: CatalogDb): Record<string, string> {
  const rows = db.prepare('SELECT key, value FROM meta').all() as Array<{ key: string; value: string }>;
  return Object.fromEntries(rows.map((r) => [r.key, r.value]));
}

/** How many days of install history the store keeps per listing. */
export const HISTORY_DAYS_KEPT = 365;

export function addDays(day: string, delta: number): string {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + delta);
  return date.toISOString().slice(0, 10);
}

export function dayDiff(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

/**
 * Overlays a newer series on an older one (days the newer states win), filling gaps by carrying the last
 * known cumulative total forward, and keeps the newest HISTORY_DAYS_KEPT days.
 */
export function mergeHistory(
  older: { firstDay: string; daily: number[] } | undefined,
  newer: { firstDay: string; daily: number[] },
): { firstDay: string; daily: number[] } {
  if (!older || older.daily.length === 0) return trimHistory(newer);
  const firstDay = dayDiff(older.firstDay, newer.firstDay) < 0 ? newer.firstDay : older.firstDay;
  const lastOld = addDays(older.firstDay, older.daily.length - 1);
  const lastNew = addDays(newer.firstDay, newer.daily.length - 1);
  const lastDay = dayDiff(lastOld, lastNew) > 0 ? lastNew : lastOld;
  const length = dayDiff(firstDay, lastDay) + 1;
  const daily: number[] = new Array(length);
  const oldOffset = dayDiff(firstDay, older.firstDay);
  const newOffset = dayDiff(firstDay, newer.firstDay);
  let carry = 0;
  for (let i = 0; i < length; i++) {
    const fromNew = newer.daily[i - newOffset];
    const fromOld = older.daily[i - oldOffset];
    const value = fromNew ?? fromOld ?? carry;
    daily[i] = value;
    carry = value;
  }
  return trimHistory({ firstDay, daily });
}

function trimHistory(series: { firstDay: string; daily: number[] }): { firstDay: string; daily: number[] } {
  const extra = series.daily.length - HISTORY_DAYS_KEPT;
  if (extra <= 0) return series;
  return { firstDay: addDays(series.firstDay, extra), daily: series.daily.slice(extra) };
}
