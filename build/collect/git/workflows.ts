// GitHub agentic workflows (gh-aw) of a repository (research: collect-sources.md §4): the Markdown files directly
// in workflows/ and .github/workflows/ whose front matter has an `on:` key. `gh aw add` reads those two folders;
// their shared/ subfolders hold import fragments, *.lock.yml is compiled output, and a file without `on:`
// (a README, a `redirect:` stub left where a workflow moved) cannot run.
// Named and described as the reference snapshot did: front matter `name`, else the first `# ` heading, else the
// file stem; front matter `description`, else the body's first paragraph of prose. A stem met twice (workflows/
// before .github/workflows/) is listed once.
import { posix } from 'node:path';
import { isRecord, parseFrontMatter } from './front-matter.ts';
import { describeRead, type Snapshot, type Warn } from './commit-tree.ts';

export const WORKFLOW_DIRS = ['workflows', '.github/workflows'] as const;

export interface WorkflowFound {
  path: string;
  name: string;
  description?: string;
  author?: string;
  tags: string[];
}

/** The events a workflow's `on:` names: the keys of a mapping, or the string or list given. */
function triggers(on: unknown): string[] {
  if (isRecord(on)) return Object.keys(on).sort();
  if (typeof on === 'string') return [on];
  if (Array.isArray(on)) return on.filter((item): item is string => typeof item === 'string');
  return [];
}

/** The first paragraph of prose: not a heading, a code fence, a table, HTML or an image. */
function firstParagraph(body: string): string | undefined {
  return body
    .split(/\n\s*\n/)
    .map((part) => part.trim())
    .find((part) => part && !/^(#|```|\||<|!\[)/.test(part));
}

export async function findWorkflows(snapshot: Snapshot, warn: Warn): Promise<WorkflowFound[]> {
  const found: WorkflowFound[] = [];
  const stems = new Map<string, string>();
  for (const dir of WORKFLOW_DIRS) {
    const paths = [...snapshot.files.keys()]
      .filter((path) => posix.dirname(path) === dir && path.endsWith('.md') && posix.basename(path).toLowerCase() !== 'readme.md')
      .sort();
    for (const path of paths) {
      const stem = posix.basename(path, '.md');
      const read = await snapshot.read(path);
      if (read.kind !== 'text') {
        warn(path, `skipped: ${describeRead(read, snapshot.maxFileBytes)}`);
        continue;
      }
      if (read.invalidUtf8) warn(path, 'invalid UTF-8, read with replacement characters');
      const front = parseFrontMatter(read.text);
      if (!front.ok) {
        warn(path, `skipped: front matter is not YAML (${front.error})`);
        continue;
      }
      if (!('on' in front.data)) {
        warn(path, 'skipped: no `on:` in the front matter (not a runnable workflow)');
        continue;
      }
      for (const key of front.repaired) warn(path, `unquoted ': ' in ${key}: read as a quoted string`);
      const first = stems.get(stem);
      if (first) {
        warn(path, `a workflow named ${stem} is listed from ${first}; this one is not`);
        continue;
      }
      stems.set(stem, path);
      const data = front.data;
      const heading = /^#\s+(.+)$/m.exec(front.body)?.[1]?.trim();
      const name = (typeof data.name === 'string' && data.name.trim()) || heading || stem;
      const description = (typeof data.description === 'string' && data.description.trim() ? data.description : undefined) ?? firstParagraph(front.body);
      const metadata = isRecord(data.metadata) ? data.metadata : {};
      const author = [data.author, metadata.author].find((value): value is string => typeof value === 'string' && value.trim() !== '');
      found.push({
        path,
        name,
        ...(description ? { description } : {}),
        ...(author ? { author } : {}),
        tags: ['github-agentic-workflow', ...triggers(data.on).map((event) => `trigger:${event}`)],
      });
    }
  }
  return found;
}
