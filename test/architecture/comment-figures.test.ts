// Guarantees the figures policy holds: comments in src/, server/ and build/ say why, with at most one current
// figure and a link to its record (bench/records/, docs/decisions/); the count of comment lines carrying a measured
// figure may only fall. The counting rule is comment-figures.ts.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commentLines, figureLines, hasFigure, ROOT, sourceFiles } from './comment-figures.ts';

/** The policy's target is 20; lower this as comments are rewritten, never raise it. */
const MAX_FIGURE_LINES = 4;

describe('comment figures', () => {
  it('counts a line with a figure and a unit, once, in any kind of comment', () => {
    const source = [
      '// 12.8-13.3k requests/s and +90 MB: one line',
      '/** 0.77 ms a search */',
      '/*',
      ' * brotli 11 is 35x slower',
      ' */',
      'const a = 1; // a trailing 41 % comment',
      "const b = '5 ms'; // no figure here",
      '// 304s, ARD v0.9x, 3 listings, section 8: no figures',
    ].join('\n');
    const lines = commentLines(source).filter(({ text }) => hasFigure(text));
    expect(lines.map(({ line }) => line)).toEqual([1, 2, 4, 6]);
  });

  it(`keeps comment lines with measured figures at ${MAX_FIGURE_LINES} or fewer`, () => {
    const lines = figureLines();
    expect(lines.length, lines.map(({ file, line, text }) => `${file}:${line}: ${text}`).join('\n')).toBeLessThanOrEqual(MAX_FIGURE_LINES);
  });

  it('links only to records and documents that exist', () => {
    const missing = sourceFiles().flatMap((file) =>
      commentLines(readFileSync(join(ROOT, file), 'utf8')).flatMap(({ line, text }) =>
        [...text.matchAll(/(?<![\w/])((?:bench\/records|docs)\/[\w./-]+\.md)\b/g)]
          .map((match) => match[1]!)
          .filter((path) => !existsSync(join(ROOT, path)))
          .map((path) => `${file}:${line}: ${path}`),
      ),
    );
    expect(missing).toEqual([]);
  });
});
