// Weighted reciprocal rank fusion (src/search/ranking/fusion.ts fuse): each listing's score is the sum over the lists that
// hold it of weight / (RRF_K + rank), plus the popularity prior; best first, ties to the lower id rank. Checked
// against the formula written out, on random lists with shared members, ties and a popularity weight.
import { describe, expect, it } from 'vitest';
import { fuse, POPULARITY_SPAN, RRF_K } from '../../src/search/ranking/fusion.ts';
import { seededRandom } from '../../src/search/random.ts';

function reference(count: number, idRank: number[], lists: Array<{ docs: number[]; weight: number }>, popularity: number): number[] {
  const score = new Map<number, number>();
  for (const { docs, weight } of lists) docs.forEach((doc, i) => score.set(doc, (score.get(doc) ?? 0) + weight / (RRF_K + i + 1)));
  for (const doc of score.keys()) if (popularity > 0) score.set(doc, score.get(doc)! + popularity / (RRF_K + 1 + doc * (POPULARITY_SPAN / count)));
  return [...score.keys()].sort((a, b) => score.get(b)! - score.get(a)! || idRank[a]! - idRank[b]!);
}

describe('fuse', () => {
  it('orders by the summed reciprocal ranks and the popularity prior, ties by id rank', () => {
    const random = seededRandom(7);
    for (let round = 0; round < 200; round++) {
      const count = 50 + Math.floor(random() * 500);
      const idRank = Array.from({ length: count }, (_, i) => i).sort(() => random() - 0.5);
      const pick = (n: number) => [...new Set(Array.from({ length: n }, () => Math.floor(random() * count)))];
      const lists = [
        { docs: pick(Math.floor(random() * 200)), weight: 1 },
        { docs: pick(Math.floor(random() * 200)), weight: 0.5 },
        // The same list twice under equal weights: every member ties with itself across lists, and with others.
        { docs: pick(20), weight: round % 2 === 0 ? 0.5 : 0 },
      ];
      const popularity = round % 3 === 0 ? 0 : 0.3;
      expect(fuse({ count, idRank }, lists, popularity)).toEqual(reference(count, idRank, lists, popularity));
    }
    expect(
      fuse({ count: 3, idRank: [2, 1, 0] }, [
        { docs: [0], weight: 1 },
        { docs: [2], weight: 1 },
      ]),
    ).toEqual([2, 0]);
    expect(fuse({ count: 3, idRank: [0, 1, 2] }, [])).toEqual([]);
  });

  it('leaves nothing behind between calls, and counts a listing once whatever the weights', () => {
    const idRank = [0, 1, 2, 3];
    const catalog = { count: 4, idRank };
    const lists = [
      { docs: [3, 1], weight: 0 },
      { docs: [1, 3, 3], weight: 1 },
    ];
    const first = fuse(catalog, lists, 0.2);
    expect(first).toEqual(reference(4, idRank, lists, 0.2));
    // 3 twice (1/62 + 1/63) outranks 1 once (1/61); each appears once.
    expect(first).toEqual([3, 1]);
    // The same call again on the same catalog (its scratch reused) answers the same.
    expect(fuse(catalog, lists, 0.2)).toEqual(first);
    expect(fuse(catalog, [{ docs: [2], weight: 1 }])).toEqual([2]);
  });
});
