// `npm run lint` after `npm start`: the quick start builds into the default data directory (.catalog/, git-ignored),
// whose bundled JavaScript is not ours to lint. Every directory .gitignore names is ignored by ESLint too.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');

describe('lint scope', () => {
  it('ignores every directory that .gitignore names', async () => {
    const directories = readFileSync(resolve(ROOT, '.gitignore'), 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line.endsWith('/') && !line.startsWith('#'))
      .map((line) => line.replace(/^\//, ''));
    expect(directories).toContain('.catalog/');
    const eslint = new ESLint({ cwd: ROOT });
    const linted: string[] = [];
    for (const dir of directories) if (!(await eslint.isPathIgnored(resolve(ROOT, dir, 'builds', 'x', 'chunk.mjs')))) linted.push(dir);
    expect(linted).toEqual([]);
  });
});
