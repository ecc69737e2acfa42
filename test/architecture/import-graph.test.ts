// The layers of the code base, read from its import statements: build/ and server/ never import each other (what
// both need lives in src/), and no module imports itself through a cycle. Static, dynamic and type-only imports
// all count: a type import still ties two modules' meaning together.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');
const LAYERS = ['build', 'server', 'src', 'site'];
const IMPORT =
  /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)|^import\s+['"](\.{1,2}\/[^'"]+)['"]/gm;

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(ts|mjs|js)$/.test(entry.name) && !entry.name.endsWith('.d.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

/** module → the project modules it imports (paths relative to the repository root). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of LAYERS.flatMap(sources)) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    const targets: string[] = [];
    for (const match of text.matchAll(IMPORT)) {
      const spec = match[1] ?? match[2] ?? match[3]!;
      targets.push(relative(ROOT, resolve(ROOT, dirname(file), spec)));
    }
    graph.set(file, targets);
  }
  return graph;
}

/** Every cycle's members (strongly connected components of more than one module, or a module importing itself). */
function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    indices.set(node, index);
    low.set(node, index++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!indices.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, indices.get(next)!));
    }
    if (low.get(node) === indices.get(node)) {
      const members: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        members.push(member);
      } while (member !== node);
      if (members.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(members.sort());
    }
  };
  for (const node of graph.keys()) if (!indices.has(node)) visit(node);
  return found;
}

describe('import graph', () => {
  const graph = importGraph();

  it('reads the whole code base', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get('server/start.ts')).toContain('server/main.ts');
    expect(graph.get('server/main.ts')).toContain('server/app.ts');
  });

  it('has no edge between build/ and server/', () => {
    const crossing = [...graph].flatMap(([from, targets]) =>
      targets
        .filter((to) => (from.startsWith('build/') && to.startsWith('server/')) || (from.startsWith('server/') && to.startsWith('build/')))
        .map((to) => `${from} -> ${to}`),
    );
    expect(crossing).toEqual([]);
  });

  it('src/ imports neither build/ nor server/', () => {
    const upward = [...graph].flatMap(([from, targets]) =>
      from.startsWith('src/') ? targets.filter((to) => to.startsWith('build/') || to.startsWith('server/')).map((to) => `${from} -> ${to}`) : [],
    );
    expect(upward).toEqual([]);
  });

  it('has no import cycle', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('would see a cycle and a crossing edge if there were one', () => {
    const planted = new Map([
      ['server/a.ts', ['server/b.ts']],
      ['server/b.ts', ['server/a.ts', 'build/c.ts']],
      ['build/c.ts', []],
    ]);
    expect(cycles(planted)).toEqual([['server/a.ts', 'server/b.ts']]);
  });
});
