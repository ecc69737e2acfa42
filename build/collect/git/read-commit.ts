// One repository read at one commit, for every source kind that reads git (git, awesome-list): open or clone it,
// resolve the ref, skip it when it is at the commit its last run read, and turn any failure into a failed source
// (never a throw) with its reason, counting the network operations either way.
import { GitRepository, GitSourceError } from './repository.ts';
import { Snapshot } from './commit-tree.ts';
import type { GitBounds } from '../sources-file.ts';
import { emptyStats, type Candidate, type ListingSourceResult, type SourceContext, type SourceStats } from '../types.ts';

export interface CommitRead {
  repository: GitRepository;
  /** The full commit id, and the 12-hex form listings carry. */
  fullCommit: string;
  commit: string;
  snapshot: Snapshot;
  stats: SourceStats;
}

/** Runs `read` over the repository at `entry.ref`; `read` returns the candidates of that commit. */
export async function readCommit(
  entry: { url: string; ref?: string; repo: string; bounds: GitBounds },
  ctx: SourceContext,
  read: (commit: CommitRead) => Promise<Candidate[]>,
): Promise<ListingSourceResult> {
  const stats = emptyStats();
  let repository: GitRepository | undefined;
  try {
    repository = await GitRepository.open(entry.url, { stateDir: ctx.stateDir, bounds: entry.bounds, signal: ctx.signal, log: ctx.log });
    const fullCommit = await repository.resolveCommit(entry.ref);
    const commit = fullCommit.slice(0, 12);
    if (ctx.previousCommit === commit) {
      stats.requests = repository.requests;
      return { status: 'ok', unchanged: true, candidates: [], removed: [], absenceIsRemoval: true, commit, stats };
    }
    const reader = repository;
    const snapshot = new Snapshot(await repository.listTree(fullCommit), (oid) => reader.readBlob(oid), entry.bounds.maxFileBytes);
    const candidates = await read({ repository, fullCommit, commit, snapshot, stats });
    stats.requests = repository.requests;
    return { status: 'ok', candidates, removed: [], absenceIsRemoval: true, commit, stats };
  } catch (error) {
    if (repository) stats.requests = repository.requests;
    const reason = error instanceof GitSourceError ? error.message : `unexpected: ${(error as Error).message}`;
    ctx.log(`${entry.repo}: failed: ${reason}`);
    return { status: 'failed', error: `${entry.repo} (${entry.url}): ${reason}`, candidates: [], removed: [], absenceIsRemoval: false, stats };
  } finally {
    repository?.close();
  }
}
