// The awesome-list source: a Markdown list in a repository (or a folder of them, one file per category, like
// TensorBlock's docs/), read from git objects at a ref like the git source, parsed by ../awesome-list-parser.ts into one
// MCP server per linked GitHub repository. A list read whole at a commit is the list's whole content.
import { GitSourceError } from '../git/repository.ts';
import { readCommit } from '../git/read-commit.ts';
import { parseAwesomeList } from '../awesome-list-parser.ts';
import type { AwesomeListSource } from '../sources-file.ts';
import type { Candidate, ListingSourceResult, SourceContext } from '../types.ts';

/** The largest list file read. */
export const MAX_LIST_BYTES = 16 * 1024 * 1024;

export function collectAwesomeList(entry: AwesomeListSource & { id: string; repo: string }, ctx: SourceContext): Promise<ListingSourceResult> {
  return readCommit(entry, ctx, async ({ repository, fullCommit, commit, snapshot, stats }) => {
    const path = entry.path.replace(/\/+$/, '');
    const files = snapshot.files.has(path)
      ? [path]
      : snapshot
          .filesUnder(path)
          .map((file) => file.path)
          .filter((file) => /\.md$/i.test(file) && file.slice(path.length + 1).indexOf('/') < 0);
    if (files.length === 0) throw new GitSourceError(`${path} is not a Markdown file or folder at ${commit}`);
    const dates = (await repository.datePaths(fullCommit, files)).last;
    const candidates: Candidate[] = [];
    let skipped = 0;
    for (const file of files) {
      // A list is one large file, unlike a skill's: it is bounded by MAX_LIST_BYTES, not the skill bounds.
      const read = await snapshot.read(file, MAX_LIST_BYTES);
      if (read.kind !== 'text') throw new GitSourceError(`${file} could not be read (${read.kind})`);
      const parsed = parseAwesomeList(read.text, {
        repo: entry.repo,
        path: file,
        commit,
        ref: entry.ref,
        updatedAt: dates.get(file),
        category: entry.category,
      });
      for (const candidate of parsed.candidates) candidates.push(candidate);
      skipped += parsed.skipped;
    }
    if (skipped) stats.warnings.push({ where: `${entry.repo}@${commit}:${path}`, message: `${skipped} items link no GitHub repository and were not listed` });
    ctx.log(`awesome-list ${entry.repo}@${commit}:${path}: ${candidates.length} servers`);
    return candidates;
  });
}
