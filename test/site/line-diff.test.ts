// Guarantees the line diff of a modified copy's page: lines both texts keep are unmarked, the origin's dropped lines
// are '-', the copy's added lines '+', in order, and replaying the diff gives back both texts.
import { describe, expect, it } from 'vitest';
import { lineDiff } from '../../src/page-model/line-diff.ts';

const replay = (diff: ReturnType<typeof lineDiff>, keep: ' ' | '-' | '+') =>
  diff
    .filter((line) => line.op === ' ' || line.op === keep)
    .map((line) => line.text)
    .join('\n');

describe('lineDiff', () => {
  it.each([
    ['an edited line', 'a\nb\nc', 'a\nB\nc'],
    ['an added tail', 'a\nb', 'a\nb\nc\nd'],
    ['a dropped head', 'x\ny\na', 'a'],
    ['CRLF against LF', 'a\r\nb', 'a\nb'],
    ['nothing shared', 'one', 'two'],
  ])('%s', (_, origin, copy) => {
    const diff = lineDiff(origin, copy);
    expect(replay(diff, '-')).toBe(origin.replace(/\r\n/g, '\n'));
    expect(replay(diff, '+')).toBe(copy);
  });

  it('marks only what changed', () => {
    expect(lineDiff('a\nb\nc', 'a\nB\nc')).toEqual([
      { op: ' ', text: 'a' },
      { op: '+', text: 'B' },
      { op: '-', text: 'b' },
      { op: ' ', text: 'c' },
    ]);
  });
});
