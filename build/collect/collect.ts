// `catalog collect`: reads every source of a sources file, merges what they found into one listing per identity,
// and writes an export `ingest` reads. Nothing is lost: a source that fails keeps its listings from its last
// successful run (marked with the day they were last confirmed), removal needs positive evidence, and a
// collection that would remove more than `maxShrink` of a source's listings stops unless allowed. State (what each
// source read, ETags, high-water marks, last known figures) is written only after the export is.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { candidateKeys } from './identity.ts';
import { mergeCandidates, thinRecord, type ListingSourceKind, type MergeResult, type PreviousExport, type SourceCandidates } from './merge.ts';
import { LineFile, Spool } from './line-file.ts';
import type { Labelled } from './classify.ts';
import { readSourcesFile, type ResolvedSource, type SourceEntry, type SourcesFile } from './sources-file.ts';
import { CollectState } from './state.ts';
import { emptyStats, type Candidate, type InstallCount, type ListingSourceResult, type RepoMeta, type SourceContext, type SourceStats } from './types.ts';
import { readSummary, sha256File, writeCollectedExport, writeSummary, type WrittenExport } from './write-export.ts';
import { collectExportSource } from './sources/export.ts';
import { collectGitSource } from './sources/git.ts';
import { collectAwesomeList } from './sources/awesome-list.ts';
import { collectMcpRegistry } from './sources/mcp-registry.ts';
import { fetchGithubMetadata } from './sources/github.ts';
import { fetchInstalls } from './sources/installs.ts';

export interface CollectOptions {
  sourcesFile: string;
  out: string;
  stateDir: string;
  allowShrink?: boolean;
  /** Removals at or below this many listings never stop a collection (small sources change by a few). */
  shrinkFloor?: number;
  now?: Date;
  env?: Record<string, string | undefined>;
  signal?: AbortSignal;
  /** A line for a person (progress, warnings). */
  log?(line: string): void;
  /** Called as each source starts and ends, for progress. */
  onSource?(event: { id: string; kind: string; phase: 'start' | 'end'; index: number; total: number }): void;
}

export interface SourceReport {
  id: string;
  kind: SourceEntry['kind'];
  status: 'ok' | 'failed' | 'skipped';
  error?: string;
  commit?: string;
  /** Listings this source holds after the collection (its last successful run's when it failed). */
  listings: number;
  added: number;
  changed: number;
  removed: number;
  kept: number;
  /** Failed sources: listings carried from the last successful run. */
  carried: number;
  requests: number;
  notModified: number;
  rateLimitWaits: number;
  warnings: SourceStats['warnings'];
  seconds: number;
}

export interface CollectReport {
  out: string;
  collectedAt: string;
  listings: number;
  files: number;
  added: number;
  changed: number;
  removed: number;
  unchanged: number;
  /** Listings whose every source failed this time (they carry confirmedAt). */
  unconfirmed: number;
  classified: number;
  exportChanged: boolean;
  sha256: string;
  sources: SourceReport[];
  seconds: number;
}

export class ShrinkError extends Error {}
export class CollectError extends Error {}

const LISTING_KINDS: ReadonlySet<string> = new Set(['git', 'awesome-list', 'mcp-registry', 'export']);
const day = (date: Date) => date.toISOString().slice(0, 10);
const primaryKey = (candidate: Candidate) => candidateKeys(candidate)[0]!;

function runListingSource(entry: ResolvedSource, ctx: SourceContext): Promise<ListingSourceResult> {
  switch (entry.kind) {
    case 'git':
      return collectGitSource(entry as Parameters<typeof collectGitSource>[0], ctx);
    case 'awesome-list':
      return collectAwesomeList(entry as Parameters<typeof collectAwesomeList>[0], ctx);
    case 'mcp-registry':
      return collectMcpRegistry(entry, ctx);
    case 'export':
      return collectExportSource(entry, ctx);
    default:
      throw new CollectError(`${entry.kind} is not a listing source`);
  }
}

/** What a source holds now: its whole reading, its last reading updated by an incremental one, or (failed) its last. */
function effectiveCandidates(result: ListingSourceResult, last: Candidate[]): Candidate[] {
  if (result.status === 'failed') return last;
  const removed = new Set(result.removed.flatMap((candidate) => candidateKeys(candidate)));
  if (result.absenceIsRemoval) return result.candidates.filter((candidate) => !candidateKeys(candidate).some((key) => removed.has(key)));
  const byKey = new Map(last.map((candidate) => [primaryKey(candidate), candidate]));
  for (const candidate of result.candidates) byKey.set(primaryKey(candidate), candidate);
  return [...byKey.values()].filter((candidate) => !candidateKeys(candidate).some((key) => removed.has(key)));
}

/** The export the last collection wrote, read by line (line-file.ts), with the identities it stored in the same order. */
async function openPrevious(out: string, identities: LineFile | undefined): Promise<PreviousExport & { close(): void }> {
  const lines = existsSync(out) ? await LineFile.open(out) : undefined;
  return {
    count: lines?.count ?? 0,
    read: (index) => lines!.read(index),
    storedKeys(index, id) {
      if (!identities || index >= identities.count) return [];
      const [storedId, keys] = JSON.parse(identities.read(index)) as [string, string[]];
      return storedId === id ? keys : [];
    },
    close() {
      lines?.close();
      identities?.close();
    },
  };
}

const settingsOf = (entry: ResolvedSource) => createHash('sha256').update(JSON.stringify(entry)).digest('hex');

export async function collect(options: CollectOptions): Promise<CollectReport> {
  const started = performance.now();
  const now = options.now ?? new Date();
  const log = options.log ?? (() => undefined);
  const env = options.env ?? process.env;
  const shrinkFloor = options.shrinkFloor ?? 10;
  const sources: SourcesFile = readSourcesFile(options.sourcesFile);
  const state = new CollectState(options.stateDir);
  const previous = await openPrevious(options.out, await state.identities());
  const closers: Array<() => void> = [() => previous.close()];
  try {
    return await collectWith(options, sources, state, previous, closers, { now, log, env, shrinkFloor, started });
  } finally {
    for (const close of closers) close();
  }
}

async function collectWith(
  options: CollectOptions,
  sources: SourcesFile,
  state: CollectState,
  previous: PreviousExport,
  closers: Array<() => void>,
  {
    now,
    log,
    env,
    shrinkFloor,
    started,
  }: { now: Date; log: (line: string) => void; env: Record<string, string | undefined>; shrinkFloor: number; started: number },
): Promise<CollectReport> {
  const reports: SourceReport[] = [];
  const merged: SourceCandidates[] = [];
  const saves: Array<() => Promise<void>> = [];
  const total = sources.sources.length;

  const context = (id: string, previousCommit?: string): SourceContext => ({
    stateDir: state.sourceDir(id),
    now,
    log,
    signal: options.signal,
    env,
    defer: (close) => closers.push(close),
    ...(previousCommit ? { previousCommit } : {}),
  });
  const report = (entry: ResolvedSource, stats: SourceStats, seconds: number): SourceReport => ({
    id: entry.id,
    kind: entry.kind,
    status: 'ok',
    listings: 0,
    added: 0,
    changed: 0,
    removed: 0,
    kept: 0,
    carried: 0,
    requests: stats.requests,
    notModified: stats.notModified,
    rateLimitWaits: stats.rateLimitWaits,
    warnings: stats.warnings,
    seconds,
  });

  const unchangedSources: Array<{ position: number; id: string }> = [];
  // Listing sources, one after another: each is polite to its upstream, and git work is bound by the disk anyway.
  const listingEntries = sources.sources.filter((entry) => LISTING_KINDS.has(entry.kind));
  const shrinks: string[] = [];
  for (const [index, entry] of sources.sources.entries()) {
    if (!LISTING_KINDS.has(entry.kind)) continue;
    options.onSource?.({ id: entry.id, kind: entry.kind, phase: 'start', index, total });
    const t0 = performance.now();
    const lastRun = state.lastRun(entry.id);
    const settings = settingsOf(entry);
    let result: ListingSourceResult;
    try {
      result = await runListingSource(entry, context(entry.id, lastRun?.settings === settings ? lastRun.commit : undefined));
    } catch (error) {
      if (options.signal?.aborted) throw error;
      result = { status: 'failed', error: (error as Error).message, candidates: [], removed: [], absenceIsRemoval: false, stats: emptyStats() };
    }
    // The last run's candidates are read only when they are needed: a whole reading replaces them, and an unchanged
    // source's are read only if something else changed (see below).
    const needsLast = result.status === 'failed' || (!result.unchanged && !result.absenceIsRemoval);
    const last = needsLast ? await state.lastCandidates(entry.id) : [];
    const candidates = result.unchanged ? [] : effectiveCandidates(result, last);
    if (result.unchanged) unchangedSources.push({ position: merged.length, id: entry.id });
    const row = report(entry, result.stats, (performance.now() - t0) / 1000);
    row.status = result.status;
    row.listings = result.unchanged ? (lastRun?.count ?? 0) : candidates.length;
    if (result.error) row.error = result.error;
    if (result.commit) row.commit = result.commit;
    if (result.status === 'failed') {
      row.carried = last.length;
      log(`${entry.id}: failed (${result.error}); keeping its ${last.length} listings from ${lastRun?.confirmedAt ?? 'no earlier run'}`);
    } else if (!result.unchanged) {
      const present = new Set(candidates.map(primaryKey));
      const lastKeys = needsLast ? new Set(last.map(primaryKey)) : await state.lastKeys(entry.id);
      let gone = 0;
      for (const key of lastKeys) if (!present.has(key)) gone++;
      row.removed = gone;
      if (gone > shrinkFloor && gone > sources.maxShrink * lastKeys.size) {
        shrinks.push(`${entry.id} would remove ${gone} of its ${lastKeys.size} listings (more than ${Math.round(sources.maxShrink * 100)}%)`);
      }
      saves.push(() =>
        state.saveRun(
          entry.id,
          { confirmedAt: day(now), ...(result.commit ? { commit: result.commit } : {}), count: candidates.length, settings },
          candidates,
          primaryKey,
        ),
      );
    } else {
      const run = { confirmedAt: day(now), commit: result.commit, count: candidates.length, settings };
      saves.push(async () => state.saveRunRecord(entry.id, run));
    }
    merged.push({
      sourceId: entry.id,
      kind: entry.kind as ListingSourceKind,
      candidates,
      ...(result.status === 'failed' ? { confirmedAt: lastRun?.confirmedAt ?? day(now) } : {}),
    });
    reports.push(row);
    options.onSource?.({ id: entry.id, kind: entry.kind, phase: 'end', index, total });
  }
  if (listingEntries.length === 0) throw new CollectError(`${options.sourcesFile}: no listing source (git, awesome-list, mcp-registry or export)`);
  if (shrinks.length && !options.allowShrink) {
    throw new ShrinkError(`collection stopped, nothing written: ${shrinks.join('; ')}. If upstream really lost them, run again with --allow-shrink.`);
  }

  // Every listing source at the commit of its last run, over an export that run wrote: the figures alone can
  // change the export. Else the unchanged sources' candidates are read now.
  const summary = readSummary(options.out);
  const allUnchanged = unchangedSources.length === listingEntries.length && previous.count > 0 && summary?.exportSha256 !== undefined;
  const loadUnchanged = async () => {
    for (const { position, id } of unchangedSources.splice(0)) merged[position]!.candidates = await state.lastCandidates(id);
  };
  if (!allUnchanged) await loadUnchanged();

  // Figures: GitHub metadata for every repository, install counts for skills; last known values when a source fails.
  const repoMeta = state.repoMeta();
  let installs: InstallCount[] = state.installs();
  const figuresBefore = JSON.stringify([[...repoMeta.entries()].sort(), installs]);
  for (const [index, entry] of sources.sources.entries()) {
    if (entry.kind !== 'github' && entry.kind !== 'installs') continue;
    options.onSource?.({ id: entry.id, kind: entry.kind, phase: 'start', index, total });
    const t0 = performance.now();
    if (entry.kind === 'github') {
      const byLower = new Map<string, string>();
      const add = (repo: string) => byLower.has(repo.toLowerCase()) || byLower.set(repo.toLowerCase(), repo);
      for (const source of merged) for (const candidate of source.candidates) add(candidate.repo);
      for (let index = 0; index < previous.count; index++) add(String((JSON.parse(previous.read(index)) as { repo: unknown }).repo));
      const repos = [...byLower.values()];
      const previousMeta = new Map([...repoMeta.entries()]);
      let row: SourceReport;
      try {
        const result = await fetchGithubMetadata(repos, entry, context(entry.id), previousMeta);
        for (const [repo, meta] of result.meta) repoMeta.set(repo.toLowerCase(), meta);
        row = report(entry, result.stats, (performance.now() - t0) / 1000);
        row.listings = result.meta.size;
        if (result.stoppedEarly) {
          row.error = result.stoppedEarly;
          log(`${entry.id}: stopped early (${result.stoppedEarly}); the other repositories keep their last known figures`);
        }
      } catch (error) {
        row = report(entry, emptyStats(), (performance.now() - t0) / 1000);
        row.status = 'failed';
        row.error = (error as Error).message;
        log(`${entry.id}: failed (${row.error}); repositories keep their last known figures`);
      }
      saves.push(async () => state.saveRepoMeta(repoMeta));
      reports.push(row);
    } else {
      let row: SourceReport;
      try {
        const result = await fetchInstalls(entry, context(entry.id));
        row = report(entry, result.stats, (performance.now() - t0) / 1000);
        if (result.error) {
          row.status = 'failed';
          row.error = result.error;
          row.carried = installs.length;
          log(`${entry.id}: failed (${result.error}); keeping the ${installs.length} counts of the last run`);
        } else {
          installs = result.counts;
          row.listings = installs.length;
          const counts = installs;
          saves.push(async () => state.saveInstalls(counts));
        }
      } catch (error) {
        row = report(entry, emptyStats(), (performance.now() - t0) / 1000);
        row.status = 'failed';
        row.error = (error as Error).message;
      }
      reports.push(row);
    }
    options.onSource?.({ id: entry.id, kind: entry.kind, phase: 'end', index, total });
  }

  if (
    allUnchanged &&
    JSON.stringify([[...repoMeta.entries()].sort(), installs]) === figuresBefore &&
    (await sha256File(resolve(options.out))) === summary.exportSha256
  ) {
    // Nothing moved upstream: the export stays byte for byte; its summary records the collection.
    writeSummary(options.out, {
      ...summary,
      collectedAt: now.toISOString(),
      historyEnd: day(now),
      sources: reports.map(({ id, kind, status, commit, error }) => ({ id, kind, status, ...(commit ? { commit } : {}), ...(error ? { error } : {}) })),
    });
    for (const save of saves) await save();
    for (const row of reports) if (LISTING_KINDS.has(row.kind)) row.kept = row.listings;
    return {
      out: resolve(options.out),
      collectedAt: now.toISOString(),
      listings: previous.count,
      files: Number(summary.files ?? 0),
      added: 0,
      changed: 0,
      removed: 0,
      unchanged: previous.count,
      unconfirmed: 0,
      classified: 0,
      exportChanged: false,
      sha256: summary.exportSha256,
      sources: reports,
      seconds: (performance.now() - started) / 1000,
    };
  }
  await loadUnchanged();

  const installMap = new Map(installs.map((count) => [`${count.repo.toLowerCase()}|${count.skill.toLowerCase()}`, count]));
  // The merge's records go to a spool beside the export as they are made, so none is held as an object.
  mkdirSync(dirname(resolve(options.out)), { recursive: true });
  const spool = new Spool(join(dirname(resolve(options.out)), `.collect-spool-${process.pid}`));
  closers.push(() => {
    spool.close();
    rmSync(spool.path, { force: true });
  });
  const result: MergeResult = mergeCandidates({ sources: merged, previous, repoMeta, installs: installMap, now, spool });
  const classified = await classifyMissing(result, previous);

  // The export as a whole shrinks only on the same evidence a source's shrink needs.
  if (!options.allowShrink && result.removed.length > shrinkFloor && result.removed.length > sources.maxShrink * previous.count) {
    throw new ShrinkError(
      `collection stopped, nothing written: the export would lose ${result.removed.length} of its ${previous.count} listings. If upstream really lost them, run again with --allow-shrink.`,
    );
  }

  let added = 0;
  let changed = 0;
  const bySource = new Map(reports.map((row) => [row.id, row]));
  for (const listing of result.listings) {
    const kind = listing.change;
    if (kind === 'added') added++;
    else if (kind === 'changed') changed++;
    for (const sourceId of listing.sourceIds) {
      const row = bySource.get(sourceId);
      if (row && row.status === 'ok') row[kind]++;
      else if (row && kind === 'kept') row.kept++;
    }
  }

  const counts: Record<string, number> = {};
  for (const listing of result.listings) counts[String(listing.record.type)] = (counts[String(listing.record.type)] ?? 0) + 1;
  const written: WrittenExport = await writeCollectedExport(options.out, result.listings, result.text, {
    collectedAt: now.toISOString(),
    historyEnd: day(now),
    counts,
    sources: reports.map(({ id, kind, status, commit, error }) => ({ id, kind, status, ...(commit ? { commit } : {}), ...(error ? { error } : {}) })),
  });
  for (const save of saves) await save();
  await state.saveIdentities(result.listings.map((listing) => [String(listing.record.id), listing.keys] as [string, string[]]));

  return {
    out: written.path,
    collectedAt: now.toISOString(),
    listings: result.listings.length,
    files: written.files,
    added,
    changed,
    removed: result.removed.length,
    unchanged: result.listings.length - added - changed,
    unconfirmed: result.unconfirmed,
    classified,
    exportChanged: written.changed,
    sha256: written.sha256,
    sources: reports,
    seconds: (performance.now() - started) / 1000,
  };
}

/** Categories for the listings no source categorised, from their labelled neighbours (classify.ts). */
async function classifyMissing(result: MergeResult, previous: PreviousExport): Promise<number> {
  const missing = result.listings.filter((listing) => listing.record.category === undefined);
  if (missing.length === 0) return 0;
  const labelled: Labelled[] = [];
  const learn = (text: string) => {
    const record = JSON.parse(text) as Record<string, unknown>;
    if (typeof record.category === 'string')
      labelled.push({ type: String(record.type), name: String(record.name), description: String(record.description ?? ''), category: record.category });
  };
  for (let index = 0; index < previous.count; index++) learn(previous.read(index));
  for (const listing of result.listings) if (listing.record.category !== undefined) learn(result.text(listing));
  // Loaded only when a listing needs it: the encoder's modules are most of the collector's memory otherwise.
  const { nearestNeighbourClassifier } = await import('./classify.ts');
  const classifier = await nearestNeighbourClassifier(labelled);
  for (const listing of missing) {
    const record = listing.record;
    record.category = classifier.classify({
      type: String(record.type),
      name: String(record.name),
      description: String(record.description ?? ''),
      tags: (record.tags as string[]) ?? [],
    });
    // Keep the export's field order: category sits after author.
    listing.json = JSON.stringify(reorder(record));
    listing.record = thinRecord(record);
  }
  return missing.length;
}

function reorder(record: Record<string, unknown>): Record<string, unknown> {
  const { category, ...rest } = record;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(rest)) {
    out[key] = value;
    if (key === 'author') out.category = category;
  }
  return out;
}

export type { RepoMeta };
