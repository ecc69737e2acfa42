// Guarantees the documents stay true to the tree: every repository path a Markdown file of the project names
// (a link, or a `code` span or fenced-block word that starts at a top-level folder) exists, every link to a
// heading of a Markdown file finds that heading, every decision record is indexed and every benchmark run is
// dated, the README stays a README (at most 12 KB), and its configuration table names every environment variable
// the code reads.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');

/** Folders whose Markdown is content, not documentation: the snapshot's stored files and test fixtures. */
const CONTENT = [/^data\/files\//, /^test\/.*fixtures\//];
const SKIPPED_DIRS = new Set(['node_modules', '.git', '.catalog', '.catalog-bench', 'dist', 'scratch', '.astro', 'coverage']);

function markdownFiles(dir = ROOT): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    if (SKIPPED_DIRS.has(name)) continue;
    const path = join(dir, name);
    const rel = relative(ROOT, path);
    if (statSync(path).isDirectory()) {
      if (!CONTENT.some((pattern) => pattern.test(`${rel}/`))) found.push(...markdownFiles(path));
    } else if (name.endsWith('.md')) found.push(rel);
  }
  return found.sort();
}

/** The top-level entries of the repository: a path that starts with one of them names a repository file. */
const TOP_LEVEL = new Set(readdirSync(ROOT).filter((name) => !SKIPPED_DIRS.has(name) && !name.startsWith('.git')));

/** Words shaped like paths that name something else: MCP method names. */
const NOT_PATHS = new Set(['server/discover']);

/**
 * A word that names a repository path: no placeholder, glob or URL, and rooted at a top-level entry (or at
 * `./` or `../` where `relative` allows it: links and code spans, not the commands of a fenced block).
 */
function repositoryPath(word: string, relativeAllowed = true): string | undefined {
  const path = word.replace(/^[[('"]+|[\])'",;:.]+$/g, '');
  if (!path || NOT_PATHS.has(path) || /[<>{}[\]*$…|\\]|\.\.\.|^\w+:|^\//.test(path)) return undefined;
  if (path.startsWith('./') || path.startsWith('../')) return relativeAllowed ? path : undefined;
  const first = path.split('/')[0]!;
  return path.includes('/') && TOP_LEVEL.has(first) ? path : undefined;
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/[^\p{L}\p{N} -]/gu, '')
    .replace(/ /g, '-');
}

function anchors(file: string): Set<string> {
  const text = readFileSync(join(ROOT, file), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((match) => anchorOf(match[1]!)));
}

interface Reference {
  file: string;
  target: string;
}

function references(file: string): Reference[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const found: Reference[] = [];
  const fenced = [...text.matchAll(/^```[^\n]*\n([\s\S]*?)^```/gm)].map((match) => match[1]!);
  const prose = text.replace(/^```[\s\S]*?^```/gm, '');
  for (const match of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = match[1]!;
    if (!/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith('/'))
      found.push({ file, target: target.startsWith('#') ? `${file.split('/').pop()}${target}` : target });
  }
  const spans = [...prose.matchAll(/`([^`\n]+)`/g)].map((match) => match[1]!).filter((span) => !/\s/.test(span));
  const words = fenced.flatMap((block) => block.split(/\s+/));
  for (const path of [...spans.map((span) => repositoryPath(span)), ...words.map((word) => repositoryPath(word, false))]) {
    if (path) found.push({ file, target: path });
  }
  return found;
}

/** Why a reference does not resolve, or undefined when it does. Links resolve from their file; paths also from the root. */
function problem({ file, target }: Reference): string | undefined {
  const [path, anchor] = target.split('#') as [string, string | undefined];
  const candidates = [join(dirname(file), path), path];
  // A path that leaves the repository (../shared/...) names what a clone does not have, even where it exists here.
  const inside = candidates.filter((candidate) => !relative(ROOT, resolve(ROOT, candidate)).startsWith('..'));
  const hit = inside.find((candidate) => existsSync(join(ROOT, candidate)));
  if (!hit) return `${file}: ${target} does not exist`;
  if (anchor && hit.endsWith('.md') && !anchors(hit).has(anchor)) return `${file}: ${target} names no heading of ${hit}`;
  return undefined;
}

describe('Markdown paths', () => {
  const files = markdownFiles();

  it('finds the project documents and none of the content', () => {
    expect(files).toEqual(expect.arrayContaining(['README.md', 'docs/README.md', 'docs/architecture.md', 'docs/operations.md']));
    expect(files.filter((file) => file.startsWith('data/files/') || file.includes('fixtures/'))).toEqual([]);
  });

  it('reads a path from a link, a code span and a fenced block, and leaves placeholders and URLs alone', () => {
    expect(repositoryPath('src/config.ts')).toBe('src/config.ts');
    expect(repositoryPath('(server/http/).')).toBe('server/http/');
    expect(repositoryPath('[--out models/use-lite-distilled]'.split(' ')[1]!)).toBe('models/use-lite-distilled');
    expect(repositoryPath('../bench/records/')).toBe('../bench/records/');
    expect(repositoryPath('./catalog-mirror', false)).toBeUndefined();
    const notPaths = [
      '<data>/current',
      'runtime/',
      'https://x.org/a',
      '/api/v1/listings',
      'test/<files>',
      'files/*',
      'src',
      'data/x.jsonl[.gz]',
      'server/discover',
    ];
    expect(notPaths.filter((word) => repositoryPath(word) !== undefined)).toEqual([]);
    expect(anchorOf('Large catalogs: memory')).toBe('large-catalogs-memory');
    expect(anchorOf('Health, metrics and logs')).toBe('health-metrics-and-logs');
  });

  it('every repository path a Markdown file names exists', () => {
    const problems = files.flatMap((file) => references(file).map(problem)).filter((p): p is string => p !== undefined);
    expect(problems).toEqual([]);
  });

  it('no document points to a place a clone does not have', () => {
    const outside = files.filter((file) => /(^|[\s(`])(\.\.\/)?shared\/spec\/|the issue notes/.test(readFileSync(join(ROOT, file), 'utf8')));
    expect(outside).toEqual([]);
  });
});

describe('records', () => {
  it('lists every decision record in docs/decisions/README.md', () => {
    const index = readFileSync(join(ROOT, 'docs/decisions/README.md'), 'utf8');
    const records = readdirSync(join(ROOT, 'docs/decisions')).filter((name) => /^\d{3}-.+\.md$/.test(name));
    expect(records.length).toBeGreaterThanOrEqual(11);
    expect(records.filter((name) => !index.includes(`](${name})`))).toEqual([]);
  });

  it('names each benchmark run by its date and subject', () => {
    const runs = readdirSync(join(ROOT, 'bench/records'));
    expect(runs.filter((name) => !/^\d{4}-\d{2}-\d{2}-[a-z0-9-]+\.md$/.test(name))).toEqual([]);
  });
});

describe('README', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

  it('is at most 12 KB', () => {
    expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(12_000);
  });

  it('names in its configuration table every environment variable the code reads', () => {
    const config = readFileSync(join(ROOT, 'src/config.ts'), 'utf8');
    const schemaKeys = [...config.matchAll(/^ {2}([A-Z][A-Z0-9_]+):/gm)].map((match) => match[1]!);
    // Read outside the schema: the front runner's shim count, the rebuild's token, the collector's per-source keys
    // (named in collect.sources.example.yaml) and Node's own compile cache.
    const others = ['FRONT_SHIMS', 'CATALOG_STAFF_TOKEN', 'GITHUB_TOKEN', 'SKILLS_API_KEY', 'NODE_COMPILE_CACHE'];
    expect(schemaKeys.length).toBeGreaterThan(20);
    const table = new Set([...readme.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \|/gm)].map((match) => match[1]!));
    expect([...schemaKeys, ...others].filter((name) => !table.has(name))).toEqual([]);
  });
});
