// A seeded pseudo-random generator, so the IVF index (k-means seeding) is identical for the same vectors.

/** sfc32, seeded; deterministic across runs and platforms. */
export function seededRandom(seed: number): () => number {
  let a = 0x9e3779b9 ^ seed;
  let b = 0x243f6a88 ^ Math.imul(seed, 0x85ebca6b);
  let c = 0xb7e15162 ^ Math.imul(seed, 0xc2b2ae35);
  let d = 1;
  const next = (): number => {
    a |= 0;
    b |= 0;
    c |= 0;
    d |= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 16; i++) next();
  return next;
}

/** Standard normal samples via Box–Muller on the seeded generator (test data). */
export function gaussianFill(out: Float64Array, seed: number): void {
  const rnd = seededRandom(seed);
  for (let i = 0; i < out.length; i += 2) {
    let u = rnd();
    if (u < 1e-300) u = 1e-300;
    const v = rnd();
    const r = Math.sqrt(-2 * Math.log(u));
    out[i] = r * Math.cos(2 * Math.PI * v);
    if (i + 1 < out.length) out[i + 1] = r * Math.sin(2 * Math.PI * v);
  }
}
