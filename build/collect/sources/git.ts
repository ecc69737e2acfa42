// The git source: one repository read at one commit becomes its skills, marketplace, plugins and workflows, each
// with the repository, its file's path, the commit, and the dates of the last and the first commit that touched that
// file (the first tells an original from a later copy).
// What the repository says is kept raw (names, descriptions); the merge cleans text. A repository that cannot be
// reached or read, an unknown ref, or a bound exceeded fails the source (never throws): the merge then keeps the
// source's previous listings. Read whole and successfully, the candidates are the repository's whole content at
// that commit, so absence is removal.
import { posix } from 'node:path';
import { readCommit } from '../git/read-commit.ts';
import { findPlugins } from '../git/plugins.ts';
import { findSkills } from '../git/skills.ts';
import { findWorkflows } from '../git/workflows.ts';
import type { GitSource } from '../sources-file.ts';
import type { Candidate, ListingSourceResult, SourceContext } from '../types.ts';

export function collectGitSource(entry: GitSource & { id: string; repo: string }, ctx: SourceContext): Promise<ListingSourceResult> {
  return readCommit(entry, ctx, async ({ repository, fullCommit, commit, snapshot, stats }) => {
    const warn = (path: string, message: string) => stats.warnings.push({ where: `${entry.repo}@${commit}:${path}`, message });
    const repoName = posix.basename(entry.repo);

    const skills = await findSkills(snapshot, entry.bounds, warn);
    const manifests = await findPlugins(snapshot, repoName, warn);
    const workflows = await findWorkflows(snapshot, warn);

    const datePaths = [...skills.map((skill) => skill.path), ...manifests.map((found) => found.datePath), ...workflows.map((found) => found.path)];
    const dates = await repository.datePaths(fullCommit, datePaths, { first: true });
    const fallback = dates.last.size < new Set(datePaths).size ? await repository.commitDate(fullCommit) : '';
    const dated = (path: string) => ({
      updatedAt: dates.last.get(path) ?? fallback,
      ...(dates.first.has(path) ? { firstCommitAt: dates.first.get(path)! } : {}),
    });
    const base = { repo: entry.repo, commit };

    const candidates: Candidate[] = [
      ...skills.map((skill): Candidate => ({
        type: 'skill',
        name: skill.name,
        description: skill.description,
        ...base,
        ...(skill.author ? { author: skill.author } : {}),
        path: skill.path,
        ...dated(skill.path),
        tags: skill.tags,
        files: skill.files,
      })),
      ...manifests.map(({ datePath, ...found }): Candidate => ({ ...found, ...base, ...dated(datePath) })),
      ...workflows.map((workflow): Candidate => ({ type: 'workflow', ...workflow, ...base, ...dated(workflow.path) })),
    ];
    const counts = ['skill', 'marketplace', 'plugin', 'workflow'].map((type) => `${candidates.filter((c) => c.type === type).length} ${type}s`);
    ctx.log(`git ${entry.repo}@${commit}: ${counts.join(', ')}, ${stats.warnings.length} warnings`);
    return candidates;
  });
}
