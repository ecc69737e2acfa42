// The figures policy's counting rule (docs/README.md, "Writing here"): a comment line in src/, site/, server/ or build/
// that carries a figure with a unit (ms, µs, s, MB, MiB, KB, k, req/s, %, x) counts once, however many figures it
// holds. A comment keeps at most one current figure and links to its record; measurements and their history live
// in bench/records/ and docs/decisions/. Run `node test/architecture/comment-figures.ts` to list the lines.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '..', '..');
export const FOLDERS = ['src', 'site', 'server', 'build'] as const;

/**
 * A number, then a unit of time, size, rate, share or ratio ("12.8-13.3k", "0.77 ms", "+41 %", "35x", "5 s").
 * Seconds need a space ("304s" is a plural), and a number glued to a word is not a figure ("v0.9x").
 */
const FIGURE = /(?<![\p{L}\p{N}.,])\d(?:[\d,.]*\d)?(?:\s?(?:ms|µs|us|ns|MB|MiB|GB|GiB|KB|KiB|kB|k|req\/s|requests\/s|%|x|×)|\ss)(?![\p{L}\p{N}])/u;

export interface FigureLine {
  file: string;
  line: number;
  text: string;
}

/** The comment text of each line of a source file: whole-line comments, block comments and trailing `// ...`. */
export function commentLines(source: string): Array<{ line: number; text: string }> {
  const found: Array<{ line: number; text: string }> = [];
  let inBlock = false;
  source.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    let text: string | undefined;
    if (inBlock) {
      text = line;
      if (line.includes('*/')) inBlock = false;
    } else if (line.startsWith('/*')) {
      text = line;
      inBlock = !line.includes('*/');
    } else if (line.startsWith('//')) text = line;
    else text = /\s\/\/\s(.*)$/.exec(raw)?.[1];
    if (text !== undefined) found.push({ line: index + 1, text });
  });
  return found;
}

export function hasFigure(comment: string): boolean {
  return FIGURE.test(comment);
}

function* walk(dir: string): Generator<string> {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* walk(path);
    else if (/\.(?:ts|mjs|js|astro)$/.test(name)) yield path;
  }
}

/** The source files of the three folders, relative to `root`. */
export function sourceFiles(root = ROOT): string[] {
  return FOLDERS.flatMap((folder) => [...walk(join(root, folder))].map((path) => relative(root, path)));
}

export function figureLines(root = ROOT): FigureLine[] {
  const lines: FigureLine[] = [];
  for (const file of sourceFiles(root)) {
    for (const { line, text } of commentLines(readFileSync(join(root, file), 'utf8'))) {
      if (hasFigure(text)) lines.push({ file, line, text });
    }
  }
  return lines;
}

if (import.meta.main) {
  const lines = figureLines(process.argv[2] ? resolve(process.argv[2]) : ROOT);
  for (const { file, line, text } of lines) console.log(`${file}:${line}: ${text}`);
  console.log(`${lines.length} comment lines with measured figures in ${FOLDERS.join(', ')}`);
}
