// Repositories the git source tests make with the git CLI in temporary folders: files written, committed at
// fixed dates (so the last-commit dates are known), renamed, removed, tagged; and the source run over them.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterEach } from 'vitest';
import { dirname, join } from 'node:path';
import { collectGitSource } from '../../../build/collect/sources/git.ts';
import { GitBoundsSchema, type GitBounds } from '../../../build/collect/sources-file.ts';
import type { ListingSourceResult } from '../../../build/collect/types.ts';

const GIT_ENV = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Fixture',
  GIT_AUTHOR_EMAIL: 'fixture@example.com',
  GIT_COMMITTER_NAME: 'Fixture',
  GIT_COMMITTER_EMAIL: 'fixture@example.com',
};

export class FixtureRepo {
  readonly dir: string;
  private commits = 0;

  constructor(dir?: string) {
    this.dir = dir ?? mkdtempSync(join(tmpdir(), 'catalog-git-'));
    this.git('init', '--quiet', '--initial-branch=main');
  }

  git(...args: string[]): string {
    return execFileSync('git', args, { cwd: this.dir, env: { ...GIT_ENV, HOME: this.dir }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  }

  /** Files by path; a string value is written as UTF-8, a Buffer as given. */
  write(files: Record<string, string | Buffer>): this {
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(this.dir, path)), { recursive: true });
      writeFileSync(join(this.dir, path), content);
    }
    return this;
  }

  symlink(path: string, target: string): this {
    mkdirSync(dirname(join(this.dir, path)), { recursive: true });
    symlinkSync(target, join(this.dir, path));
    return this;
  }

  remove(...paths: string[]): this {
    this.git('rm', '--quiet', '-r', '--', ...paths);
    return this;
  }

  move(from: string, to: string): this {
    mkdirSync(dirname(join(this.dir, to)), { recursive: true });
    this.git('mv', from, to);
    return this;
  }

  /** Commits everything; dated 2026-01-0N (N the commit's number) unless a date is given. Returns the full id. */
  commit(message = `commit ${this.commits + 1}`, date?: string): string {
    this.commits++;
    const when = date ?? `2026-01-${String(this.commits).padStart(2, '0')}T12:00:00Z`;
    this.git('add', '--all');
    execFileSync('git', ['commit', '--quiet', '--allow-empty', '-m', message], {
      cwd: this.dir,
      env: { ...GIT_ENV, HOME: this.dir, GIT_AUTHOR_DATE: when, GIT_COMMITTER_DATE: when },
    });
    return this.git('rev-parse', 'HEAD');
  }

  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A maker of fixture repositories, each removed after the test that made it (call at a test file's top level). */
export function fixtureRepos(): () => FixtureRepo {
  const made: FixtureRepo[] = [];
  afterEach(() => {
    for (const fixture of made.splice(0)) fixture.cleanup();
  });
  return () => {
    const fixture = new FixtureRepo();
    made.push(fixture);
    return fixture;
  };
}

/** A SKILL.md with the given front matter fields (plain `key: value` lines) and a body. */
export function skillMd(fields: Record<string, string>, body = '# Skill\n\nBody.\n'): string {
  return `---\n${Object.entries(fields)
    .map(([key, value]) => `${key}: ${value}`)
    .join('\n')}\n---\n${body}`;
}

export interface CollectOptions {
  url?: string;
  ref?: string;
  repo?: string;
  bounds?: Partial<GitBounds>;
  stateDir?: string;
}

/** Runs the git source over a fixture (its folder, or `url`) with a fresh state directory unless one is given. */
export async function collect(fixture: FixtureRepo | undefined, options: CollectOptions = {}): Promise<ListingSourceResult & { log: string[] }> {
  const log: string[] = [];
  const stateDir = options.stateDir ?? mkdtempSync(join(tmpdir(), 'catalog-git-state-'));
  try {
    const result = await collectGitSource(
      {
        kind: 'git',
        id: 'git:test',
        url: options.url ?? fixture!.dir,
        repo: options.repo ?? 'acme/tools',
        ...(options.ref ? { ref: options.ref } : {}),
        bounds: GitBoundsSchema.parse(options.bounds ?? {}),
      },
      { stateDir, now: new Date('2026-02-01T00:00:00Z'), log: (line) => log.push(line), env: {} },
    );
    return { ...result, log };
  } finally {
    if (!options.stateDir) rmSync(stateDir, { recursive: true, force: true });
  }
}

/** Candidates of one type by path, for assertions. */
export function byPath(result: ListingSourceResult, type: string): Map<string, ListingSourceResult['candidates'][number]> {
  return new Map(result.candidates.filter((candidate) => candidate.type === type).map((candidate) => [candidate.path!, candidate]));
}

/** The warnings' texts as `path: message` (the `<repo>@<commit>:` prefix dropped). */
export function warningsOf(result: ListingSourceResult): string[] {
  return result.stats.warnings.map((warning) => `${warning.where.replace(/^[^:]*:/, '')}: ${warning.message}`);
}
