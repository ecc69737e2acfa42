// Where the shim's search-trend counters go when flushed: daily rows per listing id, counts only (no IPs,
// no query strings). SQLite beside the snapshot database by default, Redis when the shims share one.
export interface SignalCounts {
  appeared: number;
  opened: number;
}

/** Counts per day (YYYY-MM-DD, UTC) and listing id. */
export type DailyCounts = ReadonlyMap<string, ReadonlyMap<string, SignalCounts>>;

export interface SignalStore {
  /** Adds the counts to what the store holds for those days. */
  add(counts: DailyCounts): Promise<void>;
  /** Summed counts per listing id over the days from `sinceDay` on (inclusive). */
  totals(sinceDay: string): Promise<Map<string, SignalCounts>>;
  close(): Promise<void>;
}

/** Counted days are kept this long; the rebuild reads a much shorter window. */
export const SIGNAL_DAYS_KEPT = 90;

export function utcDay(date = new Date()): string {
  return date.toISOString().slice(0, 10);
}

export function addUtcDays(day: string, delta: number): string {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + delta);
  return date.toISOString().slice(0, 10);
}
