// A repository read through the system `git` binary, as untrusted input: every read is of git objects (ls-tree,
// cat-file, log), never of a checkout, so a symbolic link in the repository is a blob holding a path and nothing
// on this host is ever opened through it. git runs without a shell (execFile/spawn with an argument list), with
// no system or user configuration, no hooks, no prompt, and the `file` transport only for file:// URLs.
// A remote URL is cloned once, bare, into the source's state directory and fetched on later runs; the clone is
// bounded in size and time, and one that exceeds a bound is removed.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { GitBounds } from '../sources-file.ts';

/** A failure that fails the source: an unreachable URL, an unknown ref, a bound exceeded. */
export class GitSourceError extends Error {}

/** One entry of `git ls-tree -r -l`: blobs (files and symbolic links) and commits (submodules). */
export interface TreeEntry {
  path: string;
  /** `100644`, `100755`, `120000` (symbolic link), `160000` (submodule). */
  mode: string;
  type: 'blob' | 'commit' | 'tree';
  oid: string;
  /** Bytes; 0 for a submodule. */
  size: number;
}

export const SYMLINK_MODE = '120000';
export const SUBMODULE_MODE = '160000';

/**
 * Commits walked at most to date paths (the reference snapshot walked the newest 4,000): a path last touched
 * further back is dated by the commit read, which is never older than the truth.
 */
export const MAX_DATING_COMMITS = 10_000;

/** Per path: the last commit that touched it, and the first (known only when the walk reached the root). */
export interface PathDates {
  last: Map<string, string>;
  first: Map<string, string>;
}

export interface OpenOptions {
  /** The source's state directory: remote clones live under `<stateDir>/clones/`. */
  stateDir: string;
  bounds: GitBounds;
  signal?: AbortSignal;
  log?: (message: string) => void;
}

export const isRemoteUrl = (url: string) => /^(https?|git|ssh|file):\/\//.test(url) || /^[\w.-]+@[\w.-]+:/.test(url);
const isFileUrl = (url: string) => url.startsWith('file://');

/** The configuration every git command runs under, whatever the repository's own says. */
const SAFE_CONFIG = ['core.hooksPath=/dev/null', 'core.fsmonitor=false', 'core.quotePath=false', 'gc.auto=0', 'maintenance.auto=false', 'credential.helper='];

function gitEnvironment(): Record<string, string> {
  const env: Record<string, string> = {
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: '/bin/false',
    SSH_ASKPASS: '/bin/false',
    // A user-only transport (file, ext::) is refused unless a command allows it by name (file:// below).
    GIT_PROTOCOL_FROM_USER: '0',
    GIT_NO_REPLACE_OBJECTS: '1',
    GIT_SSH_COMMAND: 'ssh -o BatchMode=yes',
    // No HOME: ~/.gitconfig and the XDG config are never read.
    HOME: '/nonexistent',
    XDG_CONFIG_HOME: '/nonexistent',
    LC_ALL: 'C',
  };
  if (process.env.PATH) env.PATH = process.env.PATH;
  return env;
}

/** A git process under the safe configuration and environment (no shell: the arguments go to git as they are). */
function spawnGit(args: string[], options: { config?: string[]; env?: Record<string, string>; detached?: boolean } = {}): ChildProcessWithoutNullStreams {
  const config = [...SAFE_CONFIG, ...(options.config ?? [])].flatMap((item) => ['-c', item]);
  return spawn('git', ['--no-pager', ...config, ...args], {
    env: { ...gitEnvironment(), ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: options.detached ?? false,
  });
}

interface RunOptions {
  config?: string[];
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Called with the running child (the clone's size watch kills it). */
  watch?: (child: ChildProcessWithoutNullStreams, fail: (message: string) => void) => () => void;
  env?: Record<string, string>;
}

interface RunResult {
  stdout: Buffer;
  stderr: string;
}

/** Runs git with the safe configuration; rejects with the first line of git's own message. */
function runGit(args: string[], options: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolvePromise, reject) => {
    // Its own process group, so a timeout also stops the helpers a clone starts (remote-https, index-pack).
    const child = spawnGit(args, { config: options.config, env: options.env, detached: true });
    child.stdin.end();
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let failure: string | undefined;
    const fail = (message: string) => {
      if (failure) return;
      failure = message;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const timer = options.timeoutMs ? setTimeout(() => fail(`timed out after ${Math.round(options.timeoutMs! / 1000)} s`), options.timeoutMs) : undefined;
    const onAbort = () => fail('aborted');
    if (options.signal?.aborted) onAbort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const stopWatch = options.watch?.(child, fail);
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', (error) => fail(error.message));
    child.on('close', (code) => {
      if (timer) clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      stopWatch?.();
      const stderr = Buffer.concat(err).toString('utf8');
      if (failure) return reject(new GitSourceError(failure));
      if (code !== 0) return reject(new GitSourceError(gitMessage(stderr) || `git ${args[0]} exited with ${code}`));
      resolvePromise({ stdout: Buffer.concat(out), stderr });
    });
  });
}

/** git's own reason, without its `fatal:`/`error:` prefixes and progress lines. */
function gitMessage(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => /^(fatal|error):/.test(line));
  return (lines[0] ?? stderr.trim().split('\n')[0] ?? '').replace(/^(fatal|error):\s*/, '');
}

function directoryBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    try {
      total += statSync(join(entry.parentPath, entry.name)).size;
    } catch {
      // A temporary pack renamed between the listing and the stat.
    }
  }
  return total;
}

/** Kills a clone or fetch whose directory grows past the bound, checked a few times a second. */
function sizeWatch(dir: string, maxKiB: number) {
  return (_child: ChildProcessWithoutNullStreams, fail: (message: string) => void) => {
    const check = () => {
      if (existsSync(dir) && directoryBytes(dir) > maxKiB * 1024) fail(`clone exceeds maxCloneKiB (${maxKiB} KiB)`);
    };
    const interval = setInterval(check, 200);
    return () => clearInterval(interval);
  };
}

/** Git's commit date as UTC `YYYY-MM-DDTHH:MM:SSZ` (the snapshot's form). */
export function isoUtc(date: string): string {
  const parsed = new Date(date);
  return Number.isNaN(parsed.getTime()) ? date : parsed.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export class GitRepository {
  readonly gitDir: string;
  readonly url: string;
  /** Network operations made (clone, fetch). */
  requests = 0;
  private readonly bounds: GitBounds;
  private readonly signal: AbortSignal | undefined;
  private readonly remote: boolean;
  private batch: BlobBatch | undefined;

  private constructor(url: string, gitDir: string, bounds: GitBounds, signal: AbortSignal | undefined, remote: boolean) {
    this.url = url;
    this.gitDir = gitDir;
    this.bounds = bounds;
    this.signal = signal;
    this.remote = remote;
  }

  /** A local path (bare or working repository) as it is; a remote URL cloned or fetched into the state directory. */
  static async open(url: string, options: OpenOptions): Promise<GitRepository> {
    if (!isRemoteUrl(url)) {
      const path = resolve(url);
      if (!existsSync(path)) throw new GitSourceError(`no repository at ${path}`);
      // The ceiling keeps git from taking a plain folder for part of an enclosing repository.
      const { stdout } = await runGit(['-C', path, 'rev-parse', '--absolute-git-dir'], {
        env: { GIT_CEILING_DIRECTORIES: dirname(path) },
        signal: options.signal,
        timeoutMs: options.bounds.timeoutSeconds * 1000,
      }).catch((error: Error) => {
        throw new GitSourceError(`not a git repository: ${path} (${error.message})`);
      });
      return new GitRepository(url, stdout.toString('utf8').trim(), options.bounds, options.signal, false);
    }
    const clones = join(options.stateDir, 'clones');
    mkdirSync(clones, { recursive: true });
    const readable = basename(url.replace(/\/+$/, '').replace(/\.git$/, '')).replace(/[^A-Za-z0-9._-]/g, '_') || 'repo';
    const gitDir = join(clones, `${readable}-${createHash('sha256').update(url).digest('hex').slice(0, 12)}.git`);
    const repository = new GitRepository(url, gitDir, options.bounds, options.signal, true);
    if (existsSync(join(gitDir, 'HEAD'))) {
      options.log?.(`git: fetching ${url}`);
      await repository.fetch();
    } else {
      options.log?.(`git: cloning ${url}`);
      await repository.clone();
    }
    return repository;
  }

  private transportConfig(): string[] {
    return isFileUrl(this.url) ? ['protocol.file.allow=always'] : [];
  }

  private async clone(): Promise<void> {
    // Cloned beside its final place and renamed: an interrupted clone never passes for a repository.
    const partial = `${this.gitDir}.partial-${process.pid}`;
    rmSync(partial, { recursive: true, force: true });
    this.requests++;
    try {
      await runGit(['clone', '--bare', '--quiet', '--template=', '--', this.url, partial], {
        config: this.transportConfig(),
        timeoutMs: this.bounds.timeoutSeconds * 1000,
        signal: this.signal,
        watch: sizeWatch(partial, this.bounds.maxCloneKiB),
      });
      if (directoryBytes(partial) > this.bounds.maxCloneKiB * 1024) throw new GitSourceError(`clone exceeds maxCloneKiB (${this.bounds.maxCloneKiB} KiB)`);
      renameSync(partial, this.gitDir);
    } catch (error) {
      rmSync(partial, { recursive: true, force: true });
      throw new GitSourceError(`cannot clone ${this.url}: ${(error as Error).message}`);
    }
  }

  private async fetch(...refspecs: string[]): Promise<void> {
    this.requests++;
    const specs = refspecs.length > 0 ? refspecs : ['+refs/heads/*:refs/heads/*', '+refs/tags/*:refs/tags/*'];
    try {
      await runGit(['--git-dir', this.gitDir, 'fetch', '--quiet', '--prune', '--no-write-fetch-head', '--', this.url, ...specs], {
        config: this.transportConfig(),
        timeoutMs: this.bounds.timeoutSeconds * 1000,
        signal: this.signal,
        watch: sizeWatch(this.gitDir, this.bounds.maxCloneKiB),
      });
      if (directoryBytes(this.gitDir) > this.bounds.maxCloneKiB * 1024) throw new GitSourceError(`clone exceeds maxCloneKiB (${this.bounds.maxCloneKiB} KiB)`);
    } catch (error) {
      // A clone grown past the bound is removed whole: the next run starts again from nothing.
      if (/maxCloneKiB/.test((error as Error).message)) rmSync(this.gitDir, { recursive: true, force: true });
      throw new GitSourceError(`cannot fetch ${this.url}: ${(error as Error).message}`);
    }
  }

  private git(args: string[]): Promise<RunResult> {
    return runGit(['--git-dir', this.gitDir, ...args], { signal: this.signal, timeoutMs: this.bounds.timeoutSeconds * 1000 });
  }

  /** The full commit id a branch, tag or (short) commit names; the default branch when none. */
  async resolveCommit(ref?: string): Promise<string> {
    const name = ref ?? 'HEAD';
    const tryResolve = () =>
      this.git(['rev-parse', '--verify', '--quiet', '--end-of-options', `${name}^{commit}`]).then(
        (result) => result.stdout.toString('utf8').trim(),
        () => undefined,
      );
    let commit = await tryResolve();
    // A commit no branch points at any more (the snapshot's, say) may still be fetched by its full id.
    if (!commit && this.remote && /^[0-9a-f]{40}$/i.test(name)) {
      await this.fetch(name).catch(() => undefined);
      commit = await tryResolve();
    }
    if (!commit) throw new GitSourceError(ref ? `ref ${ref} not found in ${this.url}` : `${this.url} has no default branch (empty repository?)`);
    return commit;
  }

  /** Committer date of a commit, UTC. */
  async commitDate(commit: string): Promise<string> {
    const { stdout } = await this.git(['show', '-s', '--format=%cI', commit]);
    return isoUtc(stdout.toString('utf8').trim());
  }

  /** Every file of the commit's tree (recursively), refused past `maxTreeEntries`. */
  async listTree(commit: string): Promise<TreeEntry[]> {
    const entries: TreeEntry[] = [];
    const max = this.bounds.maxTreeEntries;
    await new Promise<void>((resolvePromise, reject) => {
      const child = spawnGit(['--git-dir', this.gitDir, 'ls-tree', '-r', '-l', '-z', '--full-tree', commit]);
      child.stdin.end();
      let rest: Buffer = Buffer.alloc(0);
      let stderr = '';
      let over = false;
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      child.stdout.on('data', (chunk: Buffer) => {
        if (over) return;
        rest = rest.length > 0 ? Buffer.concat([rest, chunk]) : chunk;
        let start = 0;
        for (let end = rest.indexOf(0, start); end !== -1; end = rest.indexOf(0, start)) {
          const record = rest.subarray(start, end).toString('utf8');
          start = end + 1;
          const tab = record.indexOf('\t');
          const [mode, type, oid, size] = record.slice(0, tab).split(/ +/);
          entries.push({ path: record.slice(tab + 1), mode: mode!, type: type as TreeEntry['type'], oid: oid!, size: size === '-' ? 0 : Number(size) });
          if (entries.length > max) {
            over = true;
            child.kill('SIGKILL');
            return;
          }
        }
        rest = rest.subarray(start);
      });
      child.on('error', reject);
      child.on('close', (code) => {
        if (over) return reject(new GitSourceError(`tree has more than maxTreeEntries (${max}) entries`));
        if (code !== 0) return reject(new GitSourceError(`cannot list the tree of ${commit}: ${gitMessage(stderr)}`));
        resolvePromise();
      });
    });
    return entries;
  }

  /** A blob's bytes through one long-lived `git cat-file --batch`; undefined when missing or not a blob. */
  readBlob(oid: string): Promise<Buffer | undefined> {
    this.batch ??= new BlobBatch(this.gitDir);
    return this.batch.read(oid);
  }

  /**
   * The last and the first commit (UTC committer dates) that touched each path, from one walk of the history from
   * `commit`. Paths the walk does not reach are missing from both maps. Without `first`, the walk stops as soon as
   * every path has its last date. With it, the walk follows moves back to where the file was added (a publisher
   * that moved its skills into `skills/` keeps the date of the first commit, which its copies must not predate), and
   * a first date is known only when the walk reached that addition or the root commit. A move is a file deleted and
   * the same blob added in one commit: found from object ids alone, so no blob is read (a move with edits is not
   * followed, and dates from its commit).
   */
  async datePaths(commit: string, paths: Iterable<string>, options: { first?: boolean } = {}): Promise<PathDates> {
    const wanted = new Set(paths);
    const last = new Map<string, string>();
    const first = new Map<string, string>();
    if (wanted.size === 0) return { last, first };
    // The path each wanted file had at the commit being read: a move seen takes it to the old path; an addition ends it.
    const lineage = new Map([...wanted].map((path) => [path, [path]]));
    const added = new Set<string>();
    let commits = 0;
    let done = false;
    let date = '';
    // --raw: per change, `:<old mode> <new mode> <old id> <new id> <status>` then its path.
    let change: { oldId: string; newId: string; status: string } | undefined;
    let changes: { oldId: string; newId: string; status: string; path: string }[] = [];
    const touch = (path: string) => {
      if (wanted.has(path) && !last.has(path)) last.set(path, date);
    };
    const endCommit = () => {
      const deleted = new Map(changes.filter((c) => c.status === 'D').map((c) => [c.oldId, c.path]));
      for (const { status, newId, path } of changes) {
        if (status === 'D') continue;
        touch(path);
        const files = lineage.get(path);
        if (!files) continue;
        for (const file of files) first.set(file, date);
        if (status !== 'A') continue;
        lineage.delete(path);
        const from = deleted.get(newId);
        if (from !== undefined) lineage.set(from, [...(lineage.get(from) ?? []), ...files]);
        else for (const file of files) added.add(file);
      }
      changes = [];
    };
    const args = options.first ? ['--raw', '--no-abbrev'] : ['--name-only'];
    await new Promise<void>((resolvePromise, reject) => {
      // No pathspec: git's history simplification with one changes which side of a merge is credited, and the
      // snapshot was dated by the plain walk.
      const child = spawnGit(['--git-dir', this.gitDir, 'log', '-z', '--no-renames', `--max-count=${MAX_DATING_COMMITS}`, '--format=%x01%cI', ...args, commit]);
      child.stdin.end();
      let rest = '';
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => {
        if (done) return;
        rest += chunk;
        const tokens = rest.split('\0');
        rest = tokens.pop()!;
        for (const raw of tokens) {
          if (raw.startsWith('\x01')) {
            if (options.first) endCommit();
            date = isoUtc(raw.slice(1).trim());
            commits++;
            continue;
          }
          const token = raw.startsWith('\n') ? raw.slice(1) : raw;
          if (!token) continue;
          if (options.first) {
            if (token.startsWith(':')) {
              const [, , oldId = '', newId = '', status = ''] = token.slice(1).split(' ');
              change = { oldId, newId, status };
            } else if (change) {
              changes.push({ ...change, path: token });
              change = undefined;
            }
            continue;
          }
          touch(token);
          if (last.size === wanted.size) {
            done = true;
            child.kill('SIGKILL');
            return;
          }
        }
      });
      child.on('error', reject);
      child.on('close', (code) => {
        if (!done && code !== 0) return reject(new GitSourceError(`cannot read the history of ${commit}: ${gitMessage(stderr)}`));
        if (options.first) endCommit();
        resolvePromise();
      });
    });
    // Cut short by MAX_DATING_COMMITS, a file not seen added may be older than any commit read.
    if (commits >= MAX_DATING_COMMITS) for (const file of first.keys()) if (!added.has(file)) first.delete(file);
    return { last, first };
  }

  close(): void {
    this.batch?.close();
    this.batch = undefined;
  }
}

interface Pending {
  resolve: (value: Buffer | undefined) => void;
  reject: (error: Error) => void;
}

/** Requests answered in order by one `git cat-file --batch`: `<oid> <type> <size>\n<bytes>\n` or `<oid> missing\n`. */
class BlobBatch {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly pending: Pending[] = [];
  private buffer: Buffer = Buffer.alloc(0);
  /** The current answer's header, once read: its type and size. */
  private header: { type: string; size: number } | undefined;
  private failed: Error | undefined;

  constructor(gitDir: string) {
    this.child = spawnGit(['--git-dir', gitDir, 'cat-file', '--batch']);
    this.child.stdout.on('data', (chunk: Buffer) => this.onData(chunk));
    this.child.stderr.resume();
    const fail = (error: Error) => {
      this.failed = error;
      for (const waiting of this.pending.splice(0)) waiting.reject(error);
    };
    this.child.on('error', fail);
    this.child.on('close', () => fail(new GitSourceError('git cat-file stopped')));
    this.child.stdin.on('error', () => undefined);
  }

  read(oid: string): Promise<Buffer | undefined> {
    if (this.failed) return Promise.reject(this.failed);
    if (!/^[0-9a-f]{40,64}$/.test(oid)) return Promise.resolve(undefined);
    return new Promise((resolvePromise, reject) => {
      this.pending.push({ resolve: resolvePromise, reject });
      this.child.stdin.write(`${oid}\n`);
    });
  }

  private onData(chunk: Buffer) {
    this.buffer = this.buffer.length > 0 ? Buffer.concat([this.buffer, chunk]) : chunk;
    for (;;) {
      if (!this.header) {
        const newline = this.buffer.indexOf(0x0a);
        if (newline === -1) return;
        const line = this.buffer.subarray(0, newline).toString('utf8');
        this.buffer = this.buffer.subarray(newline + 1);
        const [, type, size] = line.split(' ');
        if (type === 'missing' || type === 'ambiguous' || size === undefined) {
          this.pending.shift()?.resolve(undefined);
          continue;
        }
        this.header = { type: type!, size: Number(size) };
      }
      if (this.buffer.length < this.header.size + 1) return;
      const data = Buffer.from(this.buffer.subarray(0, this.header.size));
      this.buffer = this.buffer.subarray(this.header.size + 1);
      const isBlob = this.header.type === 'blob';
      this.header = undefined;
      this.pending.shift()?.resolve(isBlob ? data : undefined);
    }
  }

  close() {
    this.child.stdin.end();
  }
}
