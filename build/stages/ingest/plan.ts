// Ingest, step 2: accepted records and the database they replace → what the new database holds. Pure: the
// previous database is read through the small PreviousStore interface, so the rules (snapshot hashes, what
// counts as unchanged, added/changed/removed, how install histories merge and which are carried) are testable
// over plain maps.
import { createHash } from 'node:crypto';
import { compareIds } from '../../../src/domain/listing/ranking.ts';
import { addDays, dayDiff, HISTORY_DAYS_KEPT, mergeHistory, SCHEMA_VERSION } from '../../sqlite-store.ts';
import type { AcceptedRecord } from './validate.ts';

export interface IngestChanges {
  added: string[];
  changed: string[];
  removed: string[];
}

/** Both hashes of a snapshot: the records as ingested, and the stored files (listing, path, SHA-256). */
export interface SnapshotDigests {
  snapshotHash: string;
  filesHash: string;
}

/** What planning needs of the database an ingest replaces. */
export interface PreviousStore {
  /** Every listing: id and record as stored. */
  records(): Iterable<[id: string, json: string]>;
  /** One listing's install history. */
  history(id: string): { firstDay: string; daily: number[] } | undefined;
  /** Every install history row, ascending by listing id, with its daily series as stored (JSON). */
  histories(): Iterable<{ id: string; firstDay: string; daily: string }>;
  /**
   * Set when the store was written by this same code (meta ingestCode): its history end, and each listing's history as
   * stored, which the plan takes as is for a record it holds byte-equal (see planIngest).
   */
  sameCode?: { historyEnd: string; storedHistory(id: string): { firstDay: string; daily: string } | undefined };
}

/** One row of install_history; `listed` rows belong to a listing of this snapshot, the others are carried. */
export interface HistoryRow {
  id: string;
  firstDay: string;
  /** The daily cumulative installs as stored (a JSON array). */
  daily: string;
  days: number;
  listed: boolean;
}

export interface IngestPlan {
  /** The accepted records in id order: the database's bytes depend only on the content, never on export order. */
  listings: AcceptedRecord[];
  digests: SnapshotDigests;
  historyEnd: string | undefined;
  rejected: number;
  /** Stored files of the listings. */
  files: number;
  changes: IngestChanges;
  unchanged: number;
  /** The newest updatedAt of any listing ('' for none). */
  lastUpdated: string;
  /** The newest last day of any listing's history: the end of the window carried histories are kept for. */
  newestDay: string;
  /**
   * The listings whose row and install history the database being replaced holds as this ingest writes them: records
   * byte-equal to the stored ones, stored by this same code against the same history end (see planIngest). The
   * writer leaves these rows as they are (ingest/write.ts updates such a store in place).
   */
  asStored: ReadonlySet<string>;
  /** Every install_history row to write: each listing's, in id order, then the carried ones, in id order. */
  history(): Iterable<HistoryRow>;
  /** The fingerprint of the code that plans and validates, recorded in meta (ingestCode); undefined: not recorded. */
  codeFingerprint: string | undefined;
}

/** The accepted records in id order, so the same records in another order (or format) are the same snapshot. */
export function inIdOrder(accepted: readonly AcceptedRecord[]): AcceptedRecord[] {
  return [...accepted].sort((a, b) => compareIds(a.record.id, b.record.id));
}

/** The snapshot's hashes over records in id order (see inIdOrder). */
export function snapshotDigests(listings: readonly AcceptedRecord[]): SnapshotDigests {
  const hash = createHash('sha256');
  const filesHash = createHash('sha256');
  for (const { record, json, fileHashes } of listings) {
    hash.update(json).update('\n');
    (record.files ?? []).forEach((path, i) => filesHash.update(`${record.id}\t${path}\t${fileHashes[i]}\n`));
  }
  return { snapshotHash: hash.digest('hex'), filesHash: filesHash.digest('hex') };
}

/** Whether the stored database already holds exactly this snapshot (then nothing is written at all). */
export function holdsSnapshot(
  stored: Record<string, string> | undefined,
  digests: SnapshotDigests,
  historyEnd: string | undefined,
  rejected: number,
): stored is Record<string, string> {
  return (
    stored !== undefined &&
    stored.schemaVersion === String(SCHEMA_VERSION) &&
    stored.snapshotHash === digests.snapshotHash &&
    stored.filesHash === digests.filesHash &&
    stored.historyEnd === (historyEnd ?? '') &&
    stored.rejected === String(rejected)
  );
}

/** A listing's history: the days the previous database knew, overwritten by the days this export states. */
export function listingHistory(
  record: AcceptedRecord['record'],
  historyEnd: string | undefined,
  previous: { firstDay: string; daily: number[] } | undefined,
): { firstDay: string; daily: number[] } {
  const end = record.metrics.installsAsOf ?? historyEnd!;
  const stated = { firstDay: addDays(end, -(record.installsHistory.length - 1)), daily: record.installsHistory };
  return mergeHistory(previous, stated);
}

/**
 * Whether the history of a listing missing from this export is kept: a listing missing from one export (a source
 * hiccup, a repository briefly private) keeps its history for when it returns, until its last day falls out of
 * the kept window. The build reads history only for listings that exist, so these rows never reach the site or
 * the API (they only mark the listing as removed).
 */
export function keepsCarriedHistory(row: { firstDay: string; days: number }, newestDay: string): boolean {
  const lastDay = addDays(row.firstDay, row.days - 1);
  return dayDiff(lastDay, newestDay) < HISTORY_DAYS_KEPT;
}

/** What the new database holds, against the one it replaces (undefined: the first ingest). */
export function planIngest(options: {
  listings: AcceptedRecord[];
  digests: SnapshotDigests;
  historyEnd: string | undefined;
  rejected: number;
  previous: PreviousStore | undefined;
  /** The export's collection time (build-summary.json collectedAt); else the newest listing update. */
  lastUpdated?: string;
  /** IngestPlan.codeFingerprint. */
  codeFingerprint?: string | undefined;
}): IngestPlan {
  const { listings, historyEnd, previous } = options;
  const before = new Map(previous?.records() ?? []);
  const listed = new Set<string>();
  // A record byte-equal to the one stored, against the same history end, states the very days the stored history was
  // merged with: merging them again (mergeHistory overlays them) gives the stored history back, so it is taken as is.
  const sameCode = previous?.sameCode?.historyEnd === (historyEnd ?? '') ? previous.sameCode : undefined;
  const storedAsIs = new Set<string>();
  const changes: IngestChanges = { added: [], changed: [], removed: [] };
  let unchanged = 0;
  let files = 0;
  let lastUpdated = '';
  let newestDay = '';
  for (const { record, json } of listings) {
    listed.add(record.id);
    const stored = before.get(record.id);
    if (stored === undefined) changes.added.push(record.id);
    else if (stored === json) {
      unchanged++;
      if (sameCode) storedAsIs.add(record.id);
    } else changes.changed.push(record.id);
    files += record.files?.length ?? 0;
    if (record.updatedAt > lastUpdated) lastUpdated = record.updatedAt;
    const end = record.metrics.installsAsOf ?? historyEnd!;
    if (end > newestDay) newestDay = end;
  }
  changes.removed = [...before.keys()].filter((id) => !listed.has(id)).sort(compareIds);
  return {
    listings,
    digests: options.digests,
    historyEnd,
    rejected: options.rejected,
    files,
    changes,
    unchanged,
    lastUpdated: options.lastUpdated ?? lastUpdated,
    newestDay,
    codeFingerprint: options.codeFingerprint,
    asStored: storedAsIs,
    *history() {
      // Merged one listing at a time as the writer asks: a year of daily figures for every listing is never held.
      for (const { record } of listings) {
        const kept = storedAsIs.has(record.id) ? sameCode?.storedHistory(record.id) : undefined;
        if (kept) {
          yield { id: record.id, firstDay: kept.firstDay, daily: kept.daily, days: seriesLength(kept.daily), listed: true };
          continue;
        }
        const merged = listingHistory(record, historyEnd, previous?.history(record.id));
        yield { id: record.id, firstDay: merged.firstDay, daily: JSON.stringify(merged.daily), days: merged.daily.length, listed: true };
      }
      for (const row of previous?.histories() ?? []) {
        if (listed.has(row.id)) continue;
        const days = (JSON.parse(row.daily) as number[]).length;
        if (keepsCarriedHistory({ firstDay: row.firstDay, days }, newestDay)) yield { ...row, days, listed: false };
      }
    },
  };
}

/** The number of values of a stored daily series (a JSON array of numbers), without parsing it. */
export function seriesLength(daily: string): number {
  let commas = 0;
  for (let i = daily.indexOf(','); i >= 0; i = daily.indexOf(',', i + 1)) commas++;
  return daily.length > 2 ? commas + 1 : 0;
}

/** The meta table of the new database; historyRows counts the listed listings' days (carried rows aside). */
export function metaRows(plan: IngestPlan, historyRows: number): Array<[key: string, value: string]> {
  return [
    ['schemaVersion', String(SCHEMA_VERSION)],
    ['snapshotHash', plan.digests.snapshotHash],
    ['filesHash', plan.digests.filesHash],
    ['lastUpdated', plan.lastUpdated],
    ['listings', String(plan.listings.length)],
    ['files', String(plan.files)],
    ['historyRows', String(historyRows)],
    ['rejected', String(plan.rejected)],
    ['historyEnd', plan.historyEnd ?? ''],
    ...(plan.codeFingerprint ? [['ingestCode', plan.codeFingerprint] as [string, string]] : []),
  ];
}
