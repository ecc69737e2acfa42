// How often each request has been asked lately, approximately, in fixed memory: a count-min sketch (four rows of
// small saturating counters; a key's estimate is its smallest counter) whose counters are all halved after a fixed
// number of additions, so old popularity fades (TinyLFU, Einziger, Friedman & Manes 2017).

/** Counters saturate here: beyond it, "asked often" is all an admission needs to know. */
const MAX_COUNT = 15;
/** Odd multipliers spreading one 32-bit hash into four independent row positions. */
const SEEDS = [0x9e3779b1, 0x85ebca77, 0xc2b2ae3d, 0x27d4eb2f] as const;

export class FrequencySketch {
  private readonly rows: Uint8Array[];
  private readonly shift: number;
  private readonly agingPeriod: number;
  private additions = 0;

  /** `widthBits`: log2 of the counters per row; counts are halved every `agingPeriod` additions. */
  constructor(widthBits = 16, agingPeriod = 10 << widthBits) {
    this.rows = SEEDS.map(() => new Uint8Array(1 << widthBits));
    this.shift = 32 - widthBits;
    this.agingPeriod = agingPeriod;
  }

  /** Counts one more request for the key with this 32-bit hash; returns its estimate, this request included. */
  add(hash: number): number {
    let estimate = MAX_COUNT;
    for (let r = 0; r < SEEDS.length; r++) {
      const row = this.rows[r]!;
      const at = Math.imul(hash, SEEDS[r]!) >>> this.shift;
      if (row[at]! < MAX_COUNT) row[at]!++;
      estimate = Math.min(estimate, row[at]!);
    }
    if (++this.additions >= this.agingPeriod) this.age();
    return estimate;
  }

  /** Requests counted for the key with this hash, never fewer than it had (counters halve with age; others may share them). */
  estimate(hash: number): number {
    let estimate = MAX_COUNT;
    for (let r = 0; r < SEEDS.length; r++) estimate = Math.min(estimate, this.rows[r]![Math.imul(hash, SEEDS[r]!) >>> this.shift]!);
    return estimate;
  }

  private age(): void {
    this.additions = 0;
    for (const row of this.rows) for (let i = 0; i < row.length; i++) row[i]! >>>= 1;
  }
}
