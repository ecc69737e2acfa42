// The proofs' figures hold for runs of any length: the largest and smallest of more answers than the call stack
// could take as arguments (a fast machine's rebuild proof records hundreds of thousands).
import { describe, expect, it } from 'vitest';
import { maxOf, minOf } from '../../bench/proof/traffic.ts';

describe('maxOf and minOf', () => {
  it('take millions of values, where a spread into Math.max overflows the stack', () => {
    const values = Array.from({ length: 2_000_000 }, (_, i) => (i * 7919) % 2_000_003);
    expect(() => Math.max(...values)).toThrow(RangeError);
    expect(maxOf(values)).toBe(values.reduce((a, b) => (b > a ? b : a)));
    expect(minOf(values)).toBe(0);
  });

  it('answer as Math.max() and Math.min() do when there is nothing', () => {
    expect(maxOf([])).toBe(-Infinity);
    expect(minOf([])).toBe(Infinity);
  });
});
