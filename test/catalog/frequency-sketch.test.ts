// The frequency sketch behind the answer caches' admission (server/catalog/frequency-sketch.ts): it never counts a
// key below its true count (before a halving), saturates, and halves every count after its aging period.
import { describe, expect, it } from 'vitest';
import { FrequencySketch } from '../../server/catalog/frequency-sketch.ts';
import { hash32 } from '../../src/search/tokenizer.ts';

describe('FrequencySketch', () => {
  it('estimates every key at least at its true count, and most keys exactly', () => {
    const sketch = new FrequencySketch(12, 1e9);
    const truth = new Map<number, number>();
    for (let i = 0; i < 3_000; i++) {
      const hash = hash32(`query ${i % 1_000}`);
      truth.set(hash, Math.min(15, (truth.get(hash) ?? 0) + 1));
      expect(sketch.add(hash)).toBe(sketch.estimate(hash));
    }
    let exact = 0;
    for (const [hash, count] of truth) {
      expect(sketch.estimate(hash)).toBeGreaterThanOrEqual(count);
      if (sketch.estimate(hash) === count) exact++;
    }
    expect(exact / truth.size).toBeGreaterThan(0.95);
  });

  it('saturates at 15', () => {
    const sketch = new FrequencySketch(8, 1e9);
    for (let i = 0; i < 40; i++) sketch.add(7);
    expect(sketch.estimate(7)).toBe(15);
  });

  it('halves every count after its aging period', () => {
    const sketch = new FrequencySketch(10, 20);
    for (let i = 0; i < 12; i++) sketch.add(42);
    expect(sketch.estimate(42)).toBe(12);
    for (let i = 0; i < 8; i++) sketch.add(99);
    // The 20th addition halved everything: 12 → 6 and 8 → 4.
    expect(sketch.estimate(42)).toBe(6);
    expect(sketch.estimate(99)).toBe(4);
  });
});
